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
// Unlike go-sql-spanner, which ignores keys it does not know, Parse rejects
// them with an *Error that names the key and suggests the closest known one
// ("did you mean ..."). A bad value gives an *Error naming the key, the value
// and what is allowed; a DSN that does not follow the grammar gives an
// *Error saying which part is wrong. errors.Is tells the kinds apart
// (ErrMalformed, ErrUnknownProperty, ErrInvalidValue).
//
// Parse and Config.String round-trip: Parse(c.String()) equals c, and String
// is deterministic (fixed key order, only values that differ from
// NewConfig's defaults, canonical snake_case keys and canonical values).
// Config.Set and Config.Get parse and format one property, for SET and SHOW
// VARIABLE.
//
// # Values
//
// Booleans: anything strconv.ParseBool takes (true, false, 1, 0, t, f).
// Integers: decimal. Durations: Go syntax (10s, 100ms, 5us, 1ns, 1m30s), a
// bare integer meaning milliseconds, or NULL meaning 0; String writes one
// integer and the largest exact unit (1500ms, 2s). max_buffered_bytes may
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
// Every property is either honoured or accepted and kept in Config for the
// layer that will honour it. "conn.Client" means the connector's client
// applies it today; "conn (later)" means it is stored for the connection
// layer, which applies it as statements and transactions are implemented;
// "no effect" means it is accepted for compatibility and deliberately does
// nothing.
//
//	key                              type / default            status
//	-------------------------------  ------------------------  -------------------------------
//	HOST[:PORT] prefix, endpoint     string, ""                conn.Client
//	authority                        string, ""                conn.Client (grpc.WithAuthority)
//	credentials                      file path, ""             conn.Client
//	credentials_json                 JSON text, ""             conn.Client
//	use_plain_text                   bool, false               conn.Client
//	auto_config_emulator             bool, false               conn.Client (creates instance/db)
//	disable_native_metrics           bool, false               no effect (no native metrics)
//	min_sessions                     int, 100                  no effect (multiplexed session)
//	max_sessions                     int, 400                  no effect (multiplexed session)
//	num_channels                     int 1..256, 4             conn.Client
//	database_role                    string, ""                conn.Client (Session.CreatorRole)
//	disable_route_to_leader          bool, false               conn.Client
//	enable_end_to_end_tracing        bool, false               conn.Client (tracing header)
//	statement_cache_size             int, 1000                 conn (later)
//	disable_statement_cache          bool, false               conn (later)
//	connect_timeout                  duration, 0 (none)        conn.Client (session creation)
//	isolation_level                  sql.IsolationLevel        conn (later)
//	read_lock_mode                   ReadLockMode, UNSPECIFIED conn (later)
//	begin_transaction_option         INLINE / EXPLICIT         conn (later)
//	autocommit_dml_mode              TRANSACTIONAL / PDML      conn (later)
//	retry_aborts_internally          bool, true                conn (later)
//	read_only_staleness              Staleness, STRONG         conn (single-use queries)
//	rpc_priority                     Priority, UNSPECIFIED     conn (RequestOptions)
//	commit_priority                  Priority, UNSPECIFIED     conn (later)
//	optimizer_version                string, ""                conn (QueryOptions)
//	optimizer_statistics_package     string, ""                conn (QueryOptions)
//	decode_to_native_arrays          bool, false               decode ([]int64 ...)
//	decode_numeric_to_string         bool, false               decode (NUMERIC as string)
//	transaction_tag                  string, ""                conn (later)
//	statement_tag                    string, ""                conn (RequestOptions tag)
//	max_commit_delay                 duration 0..500ms, 0      conn (later)
//	statement_timeout                duration, 0 (none)        conn (bounds each query)
//	return_commit_stats              bool, false               conn (later)
//	exclude_txn_from_change_streams  bool, false               conn (later)
//	commit_timestamp                 read-only                 rejected in a DSN; SHOW only
//	commit_response                  read-only                 rejected in a DSN; SHOW only
//	raw_decode (rawDecode)           bool, false               decode/rows (raw mode)
//	prefetch_messages                int 1..1024, 4            rows (read-ahead depth)
//	max_buffered_bytes               int64 bytes, 128 MiB      conn (resume buffering)
//	poison_raw_buffers               bool, false               rows (test aid)
//
// num_channels=0 and statement_cache_size=0 mean the default, as in
// go-sql-spanner.
//
// Config holds only values (no pointers, slices or maps), so copying it
// copies everything; the package keeps no reference to a Config it returns.
package dsn
