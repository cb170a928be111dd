// Package upserttest is the end-to-end scenario of GORM's association
// saves and explicit OnConflict upserts, written once and run by the
// emulator tests of both GORM dialectors (spannergorm and
// spannergorm/postgresql), so that both dialects prove the same meaning:
// a row that does not exist is inserted, one that exists gets only the
// columns GORM asked for, and a failure leaves nothing.
//
// It knows GORM and the testing package; it must not know either
// dialector or the driver: the caller opens the database.
package upserttest
