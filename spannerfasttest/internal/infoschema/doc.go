// Package infoschema answers the test server's INFORMATION_SCHEMA queries,
// which its engine cannot: the engine's own view of the schema loses column
// order, indexes, interleaving and constraints.
//
// It owns the shape of the INFORMATION_SCHEMA tables answered (TABLES,
// COLUMNS, INDEXES, INDEX_COLUMNS, TABLE_CONSTRAINTS,
// CONSTRAINT_TABLE_USAGE: Spanner's columns, in its order and spelling),
// the rows each gets from a Schema snapshot, the
// rewrite that lets spansql parse such queries, and a small evaluator over
// spansql ASTs (with its expression typing) for the subset of GoogleSQL
// that ORMs' migrators send. Prepare recognises such a query; Answer
// evaluates it over the Schema a Catalog gives and returns one
// PartialResultSet. Errors are gRPC statuses: Unimplemented beyond the
// subset, InvalidArgument for bad names, types and parameters.
//
// It must not know the gRPC service, sessions or transactions (the caller
// decides whether a transaction may run such a query), nor how the schema
// is kept: the server's catalog hands over a snapshot.
package infoschema
