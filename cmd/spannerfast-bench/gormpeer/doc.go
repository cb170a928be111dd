// Command gormpeer measures what GORM costs on spannerfast beside
// go-gorm-spanner on go-sql-spanner: the same GORM operations
// (cmd/spannerfast-bench/internal/gormwork: Find of 10,000 rows, creates
// with and without associations, Preload), on the same models, against
// the same fake server and results, with PrepareStmt off and on.
//
// It is a module of its own, so that go-gorm-spanner and go-sql-spanner
// (and what they require) stay out of spannerfast's go.mod and out of CI;
// its go.mod replaces spannerfast with this checkout. Run it with run.sh
// next to this file, which builds and runs it under nice:
//
//	cmd/spannerfast-bench/gormpeer/run.sh [flags]
//
// GSS_TREE and GORM_TREE, when set, name source trees of go-sql-spanner
// and go-gorm-spanner to build with instead of the required versions.
//
// # Arms
//
//	spannerfast       spannergorm on spannerfast
//	spannerfast-prep  the same with gorm.Config{PrepareStmt: true}
//	gss               go-gorm-spanner on go-sql-spanner (DriverName "spanner")
//	gss-prep          the same with PrepareStmt: true
//
// Every arm uses GORM's defaults otherwise (Create runs in GORM's default
// transaction). go-gorm-spanner refuses GORM's default association save
// (an ON CONFLICT that updates only the foreign key), so create-assoc
// reports "refused" for its arms; create-assoc-full, with
// FullSaveAssociations, runs on every arm.
//
// # Method
//
// The fake server (spannerfast-bench's internal/benchserver) runs in a
// child process (this binary with -serve), so its CPU never counts. It
// answers a query by its SQL text, with the parameters bound into the text
// when no result has the text as sent (GORM sends LIMIT and a Preload's
// IN list as parameters), and every DML statement with one row changed.
// Rounds alternate the arms, rotating their order each round; in a round
// each arm does every operation -ops times (a warm-up of a few operations
// first, after a forced garbage collection). CPU is the process's
// user+system time (getrusage: every goroutine, the garbage collector
// included), allocations are runtime.MemStats deltas; the report gives
// the median over rounds per operation, and the ratio of each arm to
// spannerfast's with the same PrepareStmt. Reads are checked against the
// generator's values (a checksum of every field).
//
// -cpuprofile-arm ARM runs every operation again with ARM under the CPU
// profiler for -profile-time each (and with -memprofile FILE under the
// allocation profiler too, MemProfileRate 1, which slows allocation: take
// CPU figures from a run without it), after the measured rounds (-rounds 0
// profiles only). shares.sh, next to this file, says which code a
// profile's samples are for: GORM, spannergorm, spannerfast, database/sql,
// gRPC, or the runtime alone.
//
// Figures depend on the machine and its load; compare the arms of one run.
package main
