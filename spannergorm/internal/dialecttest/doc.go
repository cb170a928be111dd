// Package dialecttest holds the end-to-end scenarios written once and run
// by the emulator tests of both GORM dialectors (spannergorm and
// spannergorm/postgresql), so that both dialects prove the same meaning:
// GORM's association saves and explicit OnConflict upserts (a row that
// does not exist is inserted, one that exists gets only the columns GORM
// asked for, and a failure leaves nothing; Run), LIMIT and OFFSET
// sent as parameters (Limit), DropTable, the suite of GORM's features on
// one database (Suite: AutoMigrate twice, every column type, commit
// timestamps, IDENTITY keys, interleaved tables, foreign keys,
// associations, transactions, RunTransaction under aborts, batches),
// PrepareStmt (PrepareStmt), an application written the way GORM's
// documentation teaches (DocsApp), names taken from input that must add
// no SQL (HostileNames) and array elements converted as database/sql
// converts values (ArrayScan). One scenario runs on the fake server
// instead, because the emulator refuses its SQL: GORM's locking clause
// (SelectForUpdate). docs/gorm.md maps each to its test.
//
// It knows GORM, the testing package and the fake server; it must not
// know either dialector or the driver: the caller opens the database.
package dialecttest
