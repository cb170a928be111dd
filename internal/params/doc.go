// Package params turns a statement's Go arguments into Spanner's typed
// query parameters.
//
// It owns:
//
//   - which Go values an argument may be, and in which order they are tried
//     (the value itself, its driver.Valuer result, database/sql's default
//     conversion, Go structs and protos), as go-sql-spanner accepts them;
//   - their wire values and types: strings are sent untyped so that Spanner
//     infers DATE, TIMESTAMP, JSON, NUMERIC... from where the parameter
//     stands; int, uint and uint64 are INT64, checked for overflow; the
//     commonest scalars are encoded directly and the rest by the official
//     client's encoder;
//   - binding, in both dialects, as go-sql-spanner binds (Bind) but for
//     PostgreSQL $n, which the n-th unnamed argument binds as in
//     PostgreSQL: an unnamed argument to the statement's distinct
//     parameter at its own position, named ones by name (as written, then as sent, then ignoring
//     case; PostgreSQL @name parameters through the names the parse kept),
//     SpannerNamedArg for names database/sql refuses, and the errors for a
//     value that cannot be sent (ParamError) or a parameter without one
//     (MissingParamError, go-sql-spanner's text), both INVALID_ARGUMENT and
//     naming the parameter;
//   - refusing strings that are not valid UTF-8, in arguments and in
//     mutations' values (InvalidUTF8Error), before anything is sent.
//
// Convert is what a connection's CheckNamedValue does to each argument
// (ConvertPostgreSQL on a PostgreSQL-dialect database, which first reads
// PostgreSQL's text of a BOOL or ARRAY in a GenericColumnValue);
// Bind builds a request's Params and ParamTypes from the converted
// arguments of a statement already parsed, Build from its text.
//
// It must not know connections, sessions, transactions or requests: it
// takes a statement's text or parsed parameter names and arguments and
// returns values. It imports no package of this module above
// internal/sqlparse, and conn re-exports its public types.
package params
