// Package pgerror gives errors of a PostgreSQL-dialect database their
// PostgreSQL SQLSTATE (the five-character code of PostgreSQL's error
// codes appendix): SQLState finds it, Wrap attaches it to an error as an
// *Error, which keeps the error's gRPC status (code, message, details), its
// chain for errors.Is and errors.As, and its text, prefixed with
// "[SQLSTATE xxxxx] " as go-sql-spanner's driver does.
//
// A SQLSTATE comes, in this order, from the error's text when it already
// names one, from Spanner's ErrorInfo detail (metadata pg_sqlerrcode or
// sqlstate), from the gRPC code when that alone says what happened, and
// else from the gRPC code together with the message texts Spanner and the
// emulator use for a few well-known failures; everything else is XX000.
// These are go-sql-spanner's facts, kept in one table (mapping.go), so
// that an application moving between the two drivers sees the same codes.
//
// The package knows nothing of connections, dialects or statements: the
// connection decides which errors get a SQLSTATE (those of a
// PostgreSQL-dialect database only) and when.
package pgerror
