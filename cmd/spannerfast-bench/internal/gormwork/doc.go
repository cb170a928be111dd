// Package gormwork is what a GORM application does in the GORM
// comparison of spannerfast-bench (its gormpeer program runs it with
// spannergorm on spannerfast and with go-gorm-spanner on go-sql-spanner):
// the models, the operations (reads with Find and Preload, creates with
// and without associations) and the checksums of what the reads return,
// computed from the workload generator's values.
//
// It knows GORM and the workloads (package workload), and no dialector or
// driver: the caller opens the *gorm.DB, so every dialector runs the same
// operations on the same models against the same server results.
package gormwork
