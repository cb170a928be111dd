// Package gormcore holds the rules that spannergorm's two GORM dialectors,
// GoogleSQL (spannergorm) and PostgreSQL (spannergorm/postgresql), share:
// a migration runs as one DDL batch on one pinned connection, its
// statements can be recorded instead of sent, updates never set key
// columns, a DO UPDATE of some columns runs as an UPDATE and an INSERT ...
// DO NOTHING in one transaction (upsert.go), tables are dropped after
// their indexes, children and referencing tables (drop.go), how an
// auto-increment key gets its values under DefaultSequenceKind and the
// gorm_sequence_name tag (sequences.go), an OFFSET always comes with a
// LIMIT, how a model says that its table is interleaved, and the order in
// which a field's column type is chosen (type tag, then the Go type, then
// GORM's general type), and how GORM's names, dotted paths among them,
// are written as quoted identifiers (quote.go).
//
// It knows GORM and nothing of either dialect's SQL: each dialector gives
// it its own type names and statement text, and names are quoted by
// internal/sqlparse's rule of the dialect the dialector names. It must
// not import the driver: both dialectors sit above it and speak to the driver through
// database/sql only.
package gormcore
