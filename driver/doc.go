// Package driver registers spannerfast with database/sql under the name
// "spannerfast":
//
//	import _ "github.com/spannerfast/spannerfast/driver"
//
//	db, err := sql.Open("spannerfast", "projects/p/instances/i/databases/d")
//
// The DSN grammar and properties are those of go-sql-spanner (see package
// dsn), so switching from driver name "spanner" keeps the DSN.
//
// # Connectors and clients
//
// A Connector holds one transport.Client: the gRPC channels and the one
// multiplexed session that all its connections share. sql.Open calls
// Driver.OpenConnector, which parses the DSN and builds a fresh Connector
// for that sql.DB; a bad DSN therefore fails sql.Open itself with the
// *dsn.Error (database/sql returns OpenConnector's error from Open).
// sql.DB.Close closes the Connector (it implements io.Closer), which closes
// the channels, and the official client SpannerConn.UnderlyingClient made
// on them, if any. NewConnector with sql.OpenDB does the same from a
// *dsn.Config, CreateConnector from go-sql-spanner's ConnectorConfig.
//
// # go-sql-spanner's Go API
//
// The names of go-sql-spanner's package keep their meaning here (see
// docs/go-sql-spanner.md): ExecOptions, RunTransaction and its
// variants (a panic in the function rolls back, frees the connection and
// comes back as a *PanicError), Begin*Transaction, ExecuteBatchDml,
// SpannerNamedArg, PropertyValues, SpannerConn with its property setters
// (each one the SET statement of its property).
//
// # Bulk load
//
// CopyFrom loads rows from a CopyFromSource (pgx's shape) in commits under
// Spanner's limits and, when it fails, says in a *CopyError which rows
// were committed; CopyResume loads the rest. BatchWrite is the official
// client's Client.BatchWrite. See docs/bulk-load.md.
//
// Driver.Open, used only by code that calls the driver directly, caches one
// Connector per DSN string so that all its connections share one Client;
// those cached connectors live until the process ends.
//
// # STRUCT values
//
// A STRUCT column is a spanner.NullRow and an ARRAY<STRUCT> column a
// []spanner.NullRow; Struct, Structs, StructSlice and NullStruct scan them
// into Go structs by the official client's Row.ToStruct rules
// (docs/types.md).
//
// Nothing here makes an RPC: channels connect lazily and the session is
// created by the first statement.
package driver
