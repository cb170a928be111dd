// Package dsn parses and formats spannerfast data source names.
//
// A DSN has the grammar of go-sql-spanner, so existing connection strings
// keep working:
//
//	[HOST[:PORT]/]projects/P/instances/I[/databases/D][(?|;)key=value[;key=value]...]
//
// Examples:
//
//	projects/my-project/instances/my-instance/databases/my-db
//	localhost:9010/projects/p/instances/i/databases/d;usePlainText=true
//	projects/p/instances/i/databases/d?read_only_staleness=EXACT_STALENESS 10s;rpc_priority=LOW
//
// Keys are case-insensitive and underscores in them do not count, so
// usePlainText, useplaintext and use_plain_text are the same key. Values are
// raw: no quoting, no escaping, and a value cannot contain ';'. HOST[:PORT]
// becomes Config.Endpoint; endpoint= overrides it.
//
// With is_experimental_host=true the project and instance may be left out,
// as go-sql-spanner allows: HOST/[instances/I/]databases/D names project
// "default" and instance "default" unless given (experimentalpath.go).
//
// go-sql-spanner also reads a DSN written as a PostgreSQL connection URL,
// and so does Parse (url.go has the rules):
//
//	postgresql://[USER[:PASSWORD]@][HOST[:PORT]]/projects/P/instances/I[/databases/D][?key=value[&key=value]...]
//
// Split takes either form apart as go-sql-spanner's ExtractConnectorConfig
// does.
//
// Unlike go-sql-spanner, which ignores keys it does not know, Parse rejects
// them with an *Error that names the key and suggests the closest known one
// ("did you mean ..."). A bad value gives an *Error naming the key, the value
// and what is allowed; a DSN that does not follow the grammar gives an
// *Error saying which part is wrong. errors.Is tells the kinds apart
// (ErrMalformed, ErrUnknownProperty, ErrInvalidValue, ErrReadOnly), and an
// *Error carries a gRPC status so that status.Code works on it, also when
// wrapped: a read-only property given a value (commit_timestamp,
// commit_response, read_timestamp in a DSN, or a startup property in SET) is
// FailedPrecondition and reports as ErrReadOnly (and, for errors.Is, as
// ErrInvalidValue too); every other error is InvalidArgument, as in
// go-sql-spanner.
//
// Parse and Config.FormatDSN round-trip: Parse(c.FormatDSN()) equals c, and
// FormatDSN is deterministic (fixed key order, only values that differ from
// NewConfig's defaults, canonical snake_case keys and canonical values).
//
// # Secrets
//
// credentials_json is a secret. FormatDSN writes it verbatim (it has to, to
// round-trip), so never log FormatDSN's text. Config.String writes the same
// DSN with the secret replaced by Redacted ("<redacted>"), and Config
// implements fmt.Formatter and GoString so that %v, %+v, %s, %q and %#v of a
// Config or a *Config, alone or inside another value, print the redacted
// form; Config.Value (what SHOW VARIABLE answers) gives Redacted too. Errors
// never quote the secret. The other properties (including the
// credentials file path) are not secret.
//
// # SET and SHOW VARIABLE
//
// Config.Set parses one property (what Parse does per key). Config.SetVariable
// is Set for a SET statement on an open connection: a startup property is an
// ErrReadOnly error, and NULL sets the property's default. Config.Get returns
// the DSN text of a property; Config.Value returns what SHOW VARIABLE shows,
// typed and spelled as go-sql-spanner shows it: bool for booleans; int64 for
// auto_batch_dml_update_count, max_partitions, max_partitioned_parallelism
// and max_buffered_bytes; and strings for everything else: durations as Go
// writes them (10s, 1m30s, 0s), isolation_level as sql.IsolationLevel's name
// (Default, Repeatable Read), autocommit_dml_mode as Transactional or
// Partitioned_Non_Atomic, max_commit_delay as "" when it is not set, priorities and read_lock_mode as their protobuf
// names (PRIORITY_LOW, READ_LOCK_MODE_UNSPECIFIED), read_only_staleness as
// the official client's text ("(strong)", "(exactStaleness: 10s)"), and the
// int properties go-sql-spanner keeps as Go ints (num_channels, min_sessions,
// max_sessions, statement_cache_size, prefetch_messages) and the option
// numbers it has no names for (begin_transaction_option 1 = inline, 2 =
// explicit; connection_state_type 0, 1, 2) as decimal text. num_channels and
// statement_cache_size show the value in use (4, 1000) where go-sql-spanner
// shows 0 for "the default". The read-only properties are kept by the
// connection (package conn), not by Config.
//
// # Values
//
// Booleans: anything strconv.ParseBool takes (true, false, 1, 0, t, f).
// Integers: decimal. Durations: Go syntax (10s, 100ms, 5us, 1ns, 1m30s), a
// bare integer meaning milliseconds, or NULL meaning 0 (for max_commit_delay
// NULL and "" mean not set); FormatDSN writes one integer and the largest
// exact unit (1500ms, 2s). A staleness duration is stricter, as in
// go-sql-spanner: an integer and one unit, s, ms, us or ns (10s, 100ms). max_buffered_bytes may
// carry a KiB, MiB or GiB suffix. Enumerations are case-insensitive and
// ignore '_', '-' and spaces (REPEATABLE_READ, "repeatable read"). The
// staleness grammar is
//
//	STRONG
//	EXACT_STALENESS <duration>     e.g. EXACT_STALENESS 10s
//	MAX_STALENESS <duration>       single-use queries only
//	READ_TIMESTAMP <RFC 3339>      e.g. READ_TIMESTAMP 2024-01-02T03:04:05.5Z
//	MIN_READ_TIMESTAMP <RFC 3339>  single-use queries only
//
// with a case-insensitive keyword; Staleness.ReadOnly converts it to
// spannerpb.TransactionOptions_ReadOnly.
//
// # Properties
//
// Every property is declared once, in the table in properties.go: its
// name, type, default, scope (ScopeStartup: DSN only; ScopeConnection: DSN,
// SET, SET LOCAL and RESET; ScopeReadOnly: SHOW only), whether it is secret
// or an option of transactions, and what it does in one line. Parse,
// FormatDSN, SET and SHOW go by that table, Declarations reports it
// (internal/connstate keeps a connection's values by it), and the
// reference docs/properties.md is generated from it: TestPropertyDocs fails
// when the file differs (go test ./dsn -run TestPropertyDocs -update
// rewrites it).
//
// The PostgreSQL settings (postgresql.go: application_name, timezone,
// default_transaction_isolation, server_version, ...) are declared in the
// same table, marked PostgreSQL: SetVariable, Get and Value know them only
// on a Config whose DatabaseDialect is POSTGRESQL, and a DSN never takes
// them (FormatDSN leaves them out). On such a Config isolation_level shows
// in PostgreSQL's spelling (serializable, repeatable read), and
// TxnIsolation is the isolation a transaction gets.
//
// num_channels=0 and statement_cache_size=0 mean the default, as in
// go-sql-spanner.
//
// Config holds only values (no pointers, slices or maps), so copying it
// copies everything; the package keeps no reference to a Config it returns.
package dsn
