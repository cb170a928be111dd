package dsn

import (
	"database/sql"
	"math"
	"strings"
	"time"
)

var priorityAliases = map[string]Priority{
	"UNSPECIFIED": PriorityUnspecified, "PRIORITYUNSPECIFIED": PriorityUnspecified,
	"LOW": PriorityLow, "PRIORITYLOW": PriorityLow,
	"MEDIUM": PriorityMedium, "PRIORITYMEDIUM": PriorityMedium,
	"HIGH": PriorityHigh, "PRIORITYHIGH": PriorityHigh,
}

const priorityAllowed = "HIGH, MEDIUM, LOW or UNSPECIFIED"

var isolationNames = map[string]sql.IsolationLevel{
	"DEFAULT": sql.LevelDefault, "LEVELDEFAULT": sql.LevelDefault, "ISOLATIONLEVELUNSPECIFIED": sql.LevelDefault,
	"SERIALIZABLE": sql.LevelSerializable, "LEVELSERIALIZABLE": sql.LevelSerializable,
	"REPEATABLEREAD": sql.LevelRepeatableRead, "LEVELREPEATABLEREAD": sql.LevelRepeatableRead,
	"SNAPSHOT": sql.LevelSnapshot, "LEVELSNAPSHOT": sql.LevelSnapshot,
}

// stalenessText spells s as go-sql-spanner's SHOW VARIABLE does (the
// official client's TimestampBound text).
func stalenessText(s Staleness) string {
	switch s.Kind {
	case StalenessExact:
		return "(exactStaleness: " + s.Duration.String() + ")"
	case StalenessMax:
		return "(maxStaleness: " + s.Duration.String() + ")"
	case StalenessReadTimestamp:
		return "(readTimestamp: " + s.Timestamp.String() + ")"
	case StalenessMinReadTimestamp:
		return "(minReadTimestamp: " + s.Timestamp.String() + ")"
	}
	return "(strong)"
}

// autocommitText spells m as go-sql-spanner's AutocommitDMLMode.String.
func autocommitText(m AutocommitDMLMode) string {
	if m == AutocommitPartitionedNonAtomic {
		return "Partitioned_Non_Atomic"
	}
	return "Transactional"
}

// beginOptionText is go-sql-spanner's SHOW text of begin_transaction_option:
// the official client's option number (it has no name).
func beginOptionText(o BeginTransactionOption) string {
	if o == BeginTransactionExplicit {
		return "2"
	}
	return "1"
}

// stateTypeText is go-sql-spanner's SHOW text of connection_state_type: the
// number of the type (it has no name).
func stateTypeText(t ConnectionStateType) string {
	switch t {
	case ConnectionStateTransactional:
		return "1"
	case ConnectionStateNonTransactional:
		return "2"
	}
	return "0"
}

// IsolationLevelName returns the canonical DSN spelling of l (DEFAULT,
// SERIALIZABLE, REPEATABLE_READ, SNAPSHOT), or "" for a level the driver does
// not support.
func IsolationLevelName(l sql.IsolationLevel) string {
	switch l {
	case sql.LevelDefault:
		return "DEFAULT"
	case sql.LevelSerializable:
		return "SERIALIZABLE"
	case sql.LevelRepeatableRead:
		return "REPEATABLE_READ"
	case sql.LevelSnapshot:
		return "SNAPSHOT"
	}
	return ""
}

// properties declares every property once: its name, type, default (the
// value NewConfig gives it), scope (startup, per connection or read-only),
// whether it is secret or an option of transactions, and what it does.
// Parse, FormatDSN, SET, SHOW, internal/connstate and the generated
// docs/properties.md all read this table; the order is FormatDSN's.
var properties = []property{
	// Startup properties.
	startup(endpointProp()).typed("host:port").
		doc("Spanner API endpoint (also the DSN's HOST[:PORT] prefix); empty means SPANNER_EMULATOR_HOST if set, else localhost:9010 with auto_config_emulator, else " + DefaultEndpoint),
	startup(stringProp("authority", func(c *Config) *string { return &c.Authority })).
		doc("overrides the :authority header and the TLS server name, for private endpoints whose name differs from the certificate"),
	startup(stringProp("credentials", func(c *Config) *string { return &c.Credentials })).typed("file path").
		doc("path of a service account or other credentials JSON file"),
	secret(startup(stringProp("credentials_json", func(c *Config) *string { return &c.CredentialsJSON }))).typed("JSON").
		doc("credentials JSON given inline; secret: Config.String, every fmt verb, errors and SHOW VARIABLE give " + Redacted + " (FormatDSN keeps it)"),
	startup(boolProp("use_plain_text", func(c *Config) *bool { return &c.UsePlainText })).
		doc("connects without TLS and without credentials (the emulator, test servers)"),
	startup(boolProp("is_experimental_host", func(c *Config) *bool { return &c.IsExperimentalHost })).
		doc("the endpoint is an experimental host (go-sql-spanner's meaning): an endpoint is required, and ca_cert_file, client_cert_file and client_cert_key apply; see docs/transport.md"),
	startup(stringProp("ca_cert_file", func(c *Config) *string { return &c.CACertFile })).typed("file path").
		doc("with is_experimental_host: PEM file of the CAs the endpoint's certificate must chain to; TLS with it and no Google credentials"),
	startup(stringProp("client_cert_file", func(c *Config) *string { return &c.ClientCertFile })).typed("file path").
		doc("with is_experimental_host and ca_cert_file: PEM client certificate for mutual TLS (with client_cert_key)"),
	startup(stringProp("client_cert_key", func(c *Config) *string { return &c.ClientCertKey })).typed("file path").
		doc("with is_experimental_host and ca_cert_file: PEM key of client_cert_file"),
	startup(boolProp("auto_config_emulator", func(c *Config) *bool { return &c.AutoConfigEmulator })).
		doc("connects to the emulator (localhost:9010 unless an endpoint is given) in plain text and creates the instance and database (with dialect) before the first statement"),
	startup(boolProp("disable_native_metrics", func(c *Config) *bool { return &c.DisableNativeMetrics })).
		doc("turns off the official client's built-in metrics (attempt and operation counts and latencies): their export to Cloud Monitoring and the spanner/client/ ones in the application's pipeline, as in go-sql-spanner (SPANNER_DISABLE_BUILTIN_METRICS=true also turns the export off); the driver's own metrics stay; see docs/observability.md"),
	startup(intProp("min_sessions", func(c *Config) *int { return &c.MinSessions }, 0, math.MaxInt32, 0)).
		doc("accepted for compatibility; no effect (all connections share one multiplexed session)"),
	startup(intProp("max_sessions", func(c *Config) *int { return &c.MaxSessions }, 0, math.MaxInt32, 0)).
		doc("accepted for compatibility; no effect (all connections share one multiplexed session)"),
	startup(intProp("num_channels", func(c *Config) *int { return &c.NumChannels }, 1, MaxNumChannels, DefaultNumChannels)).
		doc("gRPC channels the connector opens and uses round-robin; 0 means the default"),
	startup(stringProp("database_role", func(c *Config) *string { return &c.DatabaseRole })).
		doc("fine-grained access control role the session is created with"),
	startup(boolProp("disable_route_to_leader", func(c *Config) *bool { return &c.DisableRouteToLeader })).
		doc("stops sending the route-to-leader header on read-write work"),
	startup(boolProp("enable_end_to_end_tracing", func(c *Config) *bool { return &c.EnableEndToEndTracing })).
		doc("asks Spanner for server-side traces (end-to-end tracing header) and sends the trace context of a recording span with each RPC; see docs/observability.md"),
	startup(enumProp("compression", func(c *Config) *Compression { return &c.Compression }, map[string]Compression{
		"NONE": CompressionNone, "IDENTITY": CompressionNone, "GZIP": CompressionGzip,
	}, "NONE or GZIP")).
		doc("GZIP compresses requests and asks Spanner to compress responses (the official client's Compression); NONE (default) sends them as they are; see docs/transport.md"),
	startup(boolProp("disable_tracing", func(c *Config) *bool { return &c.DisableTracing })).
		doc("makes no OpenTelemetry spans (metrics are still recorded); see docs/observability.md"),
	startup(boolProp("disable_query_text_in_traces", func(c *Config) *bool { return &c.DisableQueryTextInTraces })).
		doc("leaves statements' text (db.query.text) out of spans, for SQL that carries sensitive literals"),
	startup(intProp("statement_cache_size", func(c *Config) *int { return &c.StatementCacheSize }, 1, math.MaxInt32, DefaultStatementCacheSize)).
		doc("parsed statements cached per connector (LRU); 0 means the default"),
	startup(boolProp("disable_statement_cache", func(c *Config) *bool { return &c.DisableStatementCache })).
		doc("turns the per-connector cache of parsed statements off"),
	startup(durationProp("connect_timeout", func(c *Config) *time.Duration { return &c.ConnectTimeout }, 0)).
		doc("bounds reaching the endpoint and creating the session (and the emulator set-up), also when the caller's context has no deadline: an endpoint that refuses or never answers fails with UNAVAILABLE naming it; a shorter caller deadline still wins; 0: only the caller's context bounds it"),
	startup(shown(enumProp("connection_state_type", func(c *Config) *ConnectionStateType { return &c.ConnectionStateType }, map[string]ConnectionStateType{
		"DEFAULT": ConnectionStateDefault, "TRANSACTIONAL": ConnectionStateTransactional, "NONTRANSACTIONAL": ConnectionStateNonTransactional,
	}, "DEFAULT, TRANSACTIONAL or NON_TRANSACTIONAL"), func(c *Config) any { return stateTypeText(c.ConnectionStateType) })).
		doc("TRANSACTIONAL: SET, SET LOCAL and RESET in a transaction are undone by its rollback or failed commit and kept by its commit; NON_TRANSACTIONAL keeps them whatever the outcome; DEFAULT is TRANSACTIONAL on a PostgreSQL-dialect database and NON_TRANSACTIONAL on a GoogleSQL one"),
	startup(enumProp("database_dialect", func(c *Config) *DatabaseDialect { return &c.DatabaseDialect }, map[string]DatabaseDialect{
		"DATABASEDIALECTUNSPECIFIED": DialectUnspecified, "UNSPECIFIED": DialectUnspecified,
		"GOOGLESTANDARDSQL": DialectGoogleSQL, "GOOGLESQL": DialectGoogleSQL, "POSTGRESQL": DialectPostgreSQL,
	}, "GOOGLE_STANDARD_SQL, POSTGRESQL or DATABASE_DIALECT_UNSPECIFIED")).
		doc("dialect of the database; unspecified: the connector reads it from the database (INFORMATION_SCHEMA.DATABASE_OPTIONS) when it first connects, a dialect given here is used without asking; SHOW VARIABLE gives the dialect in effect"),

	// Per-connection properties.
	property{name: "isolation_level", kind: kindEnum, typ: "DEFAULT, SERIALIZABLE, REPEATABLE_READ or SNAPSHOT",
		set: func(c *Config, v string) *Error {
			l, ok := isolationNames[normEnum(v)]
			if !ok {
				return invalid("isolation_level", v, withAmpHint(v, "want DEFAULT, SERIALIZABLE, REPEATABLE_READ or SNAPSHOT"))
			}
			c.IsolationLevel = l
			return nil
		},
		get: func(c *Config) string {
			if n := IsolationLevelName(c.IsolationLevel); n != "" {
				return n
			}
			return itoa(int64(c.IsolationLevel)) // unsupported: Validate reports it
		},
		show: func(c *Config) any {
			if c.DatabaseDialect == DialectPostgreSQL {
				// As go-sql-spanner on PostgreSQL: lower case, and
				// the level transactions get (TxnIsolation).
				return pgIsolationText(c.TxnIsolation())
			}
			return c.IsolationLevel.String()
		},
	}.txnOption(true, false).
		doc("default isolation of read-write transactions (SNAPSHOT is REPEATABLE_READ on the wire); on a PostgreSQL-dialect database DEFAULT means default_transaction_isolation, and SHOW gives the level in PostgreSQL's spelling (serializable, repeatable read)"),
	shown(enumProp("dialect", func(c *Config) *DatabaseDialect { return &c.Dialect }, map[string]DatabaseDialect{
		"DATABASEDIALECTUNSPECIFIED": DialectUnspecified, "UNSPECIFIED": DialectUnspecified,
		"GOOGLESTANDARDSQL": DialectGoogleSQL, "GOOGLESQL": DialectGoogleSQL, "POSTGRESQL": DialectPostgreSQL,
	}, "GOOGLE_STANDARD_SQL, POSTGRESQL or DATABASE_DIALECT_UNSPECIFIED"), func(c *Config) any {
		// go-sql-spanner shows "" until a dialect is chosen: it is
		// not the database's dialect (database_dialect is).
		if c.Dialect == DialectUnspecified {
			return ""
		}
		return string(c.Dialect)
	}).
		doc("dialect of a database this connection creates (auto_config_emulator, CREATE DATABASE); unspecified (SHOW: empty) means database_dialect"),
	shown(enumProp("read_lock_mode", func(c *Config) *ReadLockMode { return &c.ReadLockMode }, map[string]ReadLockMode{
		"UNSPECIFIED": ReadLockModeUnspecified, "READLOCKMODEUNSPECIFIED": ReadLockModeUnspecified,
		"PESSIMISTIC": ReadLockModePessimistic, "OPTIMISTIC": ReadLockModeOptimistic,
	}, "PESSIMISTIC, OPTIMISTIC or UNSPECIFIED"), func(c *Config) any { return c.ReadLockMode.Proto().String() }).txnOption(true, false).
		doc("read lock mode of read-write transactions"),
	shown(enumProp("begin_transaction_option", func(c *Config) *BeginTransactionOption { return &c.BeginTransactionOption }, map[string]BeginTransactionOption{
		"DEFAULT": BeginTransactionInline, "DEFAULTBEGINTRANSACTION": BeginTransactionInline,
		"INLINE": BeginTransactionInline, "INLINED": BeginTransactionInline, "INLINEDBEGINTRANSACTION": BeginTransactionInline,
		"EXPLICIT": BeginTransactionExplicit, "EXPLICITBEGINTRANSACTION": BeginTransactionExplicit,
	}, "INLINE (or DEFAULT) or EXPLICIT"), func(c *Config) any { return beginOptionText(c.BeginTransactionOption) }).txnOption(true, true).
		doc("how transactions begin: with their first statement (INLINE) or with a BeginTransaction call (EXPLICIT)"),
	shown(enumProp("autocommit_dml_mode", func(c *Config) *AutocommitDMLMode { return &c.AutocommitDMLMode }, map[string]AutocommitDMLMode{
		"TRANSACTIONAL": AutocommitTransactional, "PARTITIONEDNONATOMIC": AutocommitPartitionedNonAtomic,
	}, "TRANSACTIONAL or PARTITIONED_NON_ATOMIC"), func(c *Config) any { return autocommitText(c.AutocommitDMLMode) }).
		doc("how DML outside a transaction runs: in a read-write transaction of its own, or as partitioned DML"),
	boolProp("retry_aborts_internally", func(c *Config) *bool { return &c.RetryAbortsInternally }).txnOption(true, false).
		doc("replays an aborted read-write transaction and checks that it read the same"),
	enumProp("savepoint_support", func(c *Config) *SavepointSupport { return &c.SavepointSupport }, map[string]SavepointSupport{
		"ENABLED": SavepointsEnabled, "FAILAFTERROLLBACK": SavepointsFailAfterRollback, "DISABLED": SavepointsDisabled,
	}, "ENABLED, FAIL_AFTER_ROLLBACK or DISABLED").
		doc("what savepoints may do: ENABLED, ROLLBACK TO replays the statements before the savepoint in a new transaction (it needs retry_aborts_internally); FAIL_AFTER_ROLLBACK, ROLLBACK TO rolls a read-write transaction back and it fails from then on; DISABLED, SAVEPOINT fails"),
	property{name: "read_only_staleness", kind: kindEnum, typ: "staleness",
		set: func(c *Config, v string) *Error {
			s, err := ParseStaleness(v)
			if err != nil {
				e := err.(*Error)
				e.Reason = withAmpHint(v, e.Reason)
				return e
			}
			c.ReadOnlyStaleness = s
			return nil
		},
		get:  func(c *Config) string { return c.ReadOnlyStaleness.String() },
		show: func(c *Config) any { return stalenessText(c.ReadOnlyStaleness) },
	}.txnOption(false, true).
		doc("timestamp bound of read-only transactions and single-use queries: STRONG, EXACT_STALENESS 10s, MAX_STALENESS 10s, READ_TIMESTAMP <RFC 3339>, MIN_READ_TIMESTAMP <RFC 3339> (durations: an integer and s, ms, us or ns)"),
	shown(enumProp("rpc_priority", func(c *Config) *Priority { return &c.RPCPriority }, priorityAliases, priorityAllowed),
		func(c *Config) any { return c.RPCPriority.Proto().String() }).
		doc("priority of every request"),
	shown(enumProp("commit_priority", func(c *Config) *Priority { return &c.CommitPriority }, priorityAliases, priorityAllowed),
		func(c *Config) any { return c.CommitPriority.Proto().String() }).txnOption(true, false).
		doc("priority of Commit requests"),
	stringProp("optimizer_version", func(c *Config) *string { return &c.OptimizerVersion }).
		doc("optimizer version sent in the query options"),
	stringProp("optimizer_statistics_package", func(c *Config) *string { return &c.OptimizerStatisticsPackage }).
		doc("optimizer statistics package sent in the query options"),
	boolProp("decode_to_native_arrays", func(c *Config) *bool { return &c.DecodeToNativeArrays }).
		doc("arrays decode to []bool, []int64, []string, ... instead of []spanner.NullBool, ... (a NULL element is an error)"),
	boolProp("decode_numeric_to_string", func(c *Config) *bool { return &c.DecodeNumericToString }).
		doc("NUMERIC decodes to its decimal text instead of big.Rat"),
	boolProp("send_typed_strings", func(c *Config) *bool { return &c.SendTypedStrings }).
		doc("string arguments (string, *string, []string, []*string) are sent as STRING and ARRAY<STRING>; by default they go untyped and Spanner infers their type (DATE, JSON, ... from a string), which fails where nothing says it (SELECT @p)"),
	stringProp("transaction_tag", func(c *Config) *string { return &c.TransactionTag }).txnOption(true, false).
		doc("tag of the next read-write transaction (used once)"),
	stringProp("statement_tag", func(c *Config) *string { return &c.StatementTag }).
		doc("request tag of the next statement (used once)"),
	maxCommitDelayProp().txnOption(true, false).
		doc("lets Spanner delay commits for throughput (Spanner accepts up to 500ms); empty or NULL: not set"),
	durationProp("statement_timeout", func(c *Config) *time.Duration { return &c.StatementTimeout }, 0).
		doc("bounds each statement, its whole stream and commit included; 0: no timeout"),
	boolProp("return_commit_stats", func(c *Config) *bool { return &c.ReturnCommitStats }).txnOption(true, false).
		doc("asks Commit for commit statistics (SHOW VARIABLE commit_response)"),
	boolProp("exclude_txn_from_change_streams", func(c *Config) *bool { return &c.ExcludeTxnFromChangeStreams }).txnOption(true, false).
		doc("keeps the writes of read-write transactions and partitioned DML out of change streams"),
	boolProp("auto_batch_dml", func(c *Config) *bool { return &c.AutoBatchDML }).
		doc("buffers DML run with ExecContext in a read-write transaction and sends it as one batch before the next query, DML with THEN RETURN or the commit"),
	int64Prop("auto_batch_dml_update_count", func(c *Config) *int64 { return &c.AutoBatchDMLUpdateCount }, math.MinInt64, math.MaxInt64).
		doc("update count a buffered DML statement reports"),
	boolProp("auto_batch_dml_update_count_verification", func(c *Config) *bool { return &c.AutoBatchDMLUpdateCountVerification }).
		doc("checks Spanner's update counts of a buffered batch against the reported ones (FailedPrecondition when they differ)"),
	boolProp("transaction_read_only", func(c *Config) *bool { return &c.TransactionReadOnly }).txnOption(true, true).
		doc("BeginTx and BEGIN start read-only transactions"),
	boolProp("transaction_deferrable", func(c *Config) *bool { return &c.TransactionDeferrable }).
		doc("no effect on Spanner (PostgreSQL compatibility); [NOT] DEFERRABLE sets it for one transaction"),
	boolProp("transaction_batch_read_only", func(c *Config) *bool { return &c.TransactionBatchReadOnly }).
		doc("read-only transactions are batch read-only transactions"),
	durationProp("transaction_timeout", func(c *Config) *time.Duration { return &c.TransactionTimeout }, 0).txnOption(true, false).
		doc("bounds a read-write transaction from its first statement, commit included (DeadlineExceeded); 0: no timeout"),
	enumProp("ddl_execution_mode", func(c *Config) *DDLExecutionMode { return &c.DDLExecutionMode }, map[string]DDLExecutionMode{
		"SYNC": DDLSync, "ASYNC": DDLAsync, "ASYNCWAIT": DDLAsyncWait,
	}, "SYNC, ASYNC or ASYNC_WAIT").
		doc("how long DDL waits for its operation: to the end, not at all, or up to ddl_async_wait_timeout"),
	durationProp("ddl_async_wait_timeout", func(c *Config) *time.Duration { return &c.DDLAsyncWaitTimeout }, 0).
		doc("bounds the wait of ddl_execution_mode ASYNC_WAIT"),
	sequenceKindProp().
		doc("DDL refused for want of a sequence kind sets this as the database's default_sequence_kind and runs again; empty: off"),
	directedReadProp().
		doc("directed read options sent with read-only queries and transactions (not with read-write work)"),
	boolProp("auto_partition_mode", func(c *Config) *bool { return &c.AutoPartitionMode }).
		doc("runs every query as a partitioned query"),
	boolProp("data_boost_enabled", func(c *Config) *bool { return &c.DataBoostEnabled }).
		doc("runs partitioned queries with Data Boost"),
	int64Prop("max_partitions", func(c *Config) *int64 { return &c.MaxPartitions }, 0, math.MaxInt64).
		doc("partition count hint of partitioned queries; 0: no hint"),
	int64Prop("max_partitioned_parallelism", func(c *Config) *int64 { return &c.MaxPartitionedParallelism }, 0, math.MaxInt32).
		doc("partitions read at once; 0: one per CPU"),
	readOnlyProp("commit_timestamp").typed("TIMESTAMP").
		doc("commit timestamp of the last read-write transaction or DML; NULL until one commits"),
	readOnlyProp("commit_response").typed("string (JSON)").
		doc(`commit timestamp and statistics of the last commit; "" before anything ran, "null" after a statement or transaction without a commit`),
	readOnlyProp("read_timestamp").typed("TIMESTAMP").
		doc("read timestamp of the last read-only transaction or query; NULL until one ran"),

	// PostgreSQL settings (postgresql.go).
	pg(stringProp("application_name", func(c *Config) *string { return &c.ApplicationName })).
		doc("the application's name, as PostgreSQL clients set it; kept for SHOW, no effect on Spanner"),
	pgStringProp("client_min_messages", func(c *Config) *string { return &c.ClientMinMessages }, clientMinMessages,
		"want a PostgreSQL message level: debug5..debug1, log, notice, warning or error").typed("message level").
		doc("accepted for PostgreSQL clients; Spanner sends no notices"),
	pgStringProp("client_encoding", func(c *Config) *string { return &c.ClientEncoding }, clientEncoding,
		"want UTF8: Spanner speaks no other encoding").typed("UTF8").
		doc("the client's character encoding: UTF8, the only one Spanner speaks"),
	pg(stringProp("timezone", func(c *Config) *string { return &c.TimeZone })).
		doc("kept for SHOW, as go-sql-spanner keeps it; it changes nothing else"),
	defaultTxnIsolationProp().
		doc("isolation of read-write transactions when isolation_level is DEFAULT (and no BEGIN ... ISOLATION LEVEL or BeginTx level says one); not set: Spanner's default, serializable"),
	transactionIsolationProp().
		doc("the isolation transactions get: isolation_level, else default_transaction_isolation, in PostgreSQL's spelling"),
	pgConstant("server_version", PGServerVersion).
		doc("the PostgreSQL version Spanner's PostgreSQL interface reports, as go-sql-spanner does"),
	pgConstant("server_version_num", PGServerVersionNum).
		doc("server_version as an integer, in text"),

	// spannerfast's own.
	boolProp("raw_decode", func(c *Config) *bool { return &c.RawDecode }).
		doc("raw decode: rows are decoded lazily from the receive buffers (also spelled rawDecode)"),
	intProp("prefetch_messages", func(c *Config) *int { return &c.PrefetchMessages }, MinPrefetchMessages, MaxPrefetchMessages, 0).
		doc("result messages read ahead per stream"),
	bytesProp("max_buffered_bytes", func(c *Config) *int64 { return &c.MaxBufferedBytes }, 0).
		doc("how much a stream buffers without a resume token before it stops being resumable"),
	boolProp("poison_raw_buffers", func(c *Config) *bool { return &c.PoisonRawBuffers }).
		doc("test aid: overwrites released receive buffers and reused slots (also SPANNERFAST_POISON_RAW_BUFFERS=true); slow"),
}

// byNorm maps a normalised key to its property.
var byNorm = func() map[string]*property {
	m := make(map[string]*property, len(properties))
	for i := range properties {
		p := &properties[i]
		p.norm = normKey(p.name)
		if _, dup := m[p.norm]; dup {
			panic("dsn: duplicate property " + p.name)
		}
		m[p.norm] = p
	}
	return m
}()

func lookup(key string) *property { return byNorm[normKey(strings.TrimSpace(key))] }

// Properties returns the canonical names of all properties, in the order
// FormatDSN writes them (read-only ones included).
func Properties() []string {
	out := make([]string, len(properties))
	for i := range properties {
		out[i] = properties[i].name
	}
	return out
}

// CanonicalName returns the canonical snake_case name of the property key
// (any spelling) and whether it is known.
func CanonicalName(key string) (string, bool) {
	if p := lookup(key); p != nil {
		return p.name, true
	}
	return "", false
}

// Set parses value into the property key (any spelling: useplaintext,
// usePlainText, use_plain_text). It is what Parse does for each key=value.
// On error c is unchanged and the error is an *Error.
func (c *Config) Set(key, value string) error {
	p := lookup(key)
	if p == nil {
		return unknownKey(strings.TrimSpace(key))
	}
	if p.pg {
		return notInDSN(p, value)
	}
	if err := p.set(c, value); err != nil {
		return err
	}
	return nil
}

// SetVariable is Set for a SET statement on an open connection: a startup
// property is an ErrReadOnly *Error (FailedPrecondition), and NULL (any
// case) sets the property's default, as in go-sql-spanner.
func (c *Config) SetVariable(key, value string) error {
	p := lookup(key)
	if p == nil {
		return unknownKey(strings.TrimSpace(key))
	}
	if err := c.pgOnHere(p, key); err != nil {
		return err
	}
	if p.startup {
		return readOnly(p.name, p.quotable(value), "startup property; set it in the DSN")
	}
	if p.get != nil && strings.EqualFold(strings.TrimSpace(value), "NULL") {
		value = p.get(defaults)
	}
	if err := p.set(c, value); err != nil {
		return err
	}
	return nil
}

// Get returns the canonical text of the property key, as FormatDSN writes
// it. Read-only properties are not kept in Config (the connection keeps
// them): Get reports them as an ErrReadOnly *Error.
func (c *Config) Get(key string) (string, error) {
	p, err := c.readable(key)
	if err != nil {
		return "", err
	}
	if p.get == nil {
		return "", readOnly(p.name, "", "read-only setting: it has no text to set")
	}
	return p.get(c), nil
}

// Value returns the property key as SHOW VARIABLE shows it, typed as
// go-sql-spanner types it: bool for booleans, int64 for its int64
// properties (auto_batch_dml_update_count, max_partitions, ...) and for
// max_buffered_bytes, and a string for everything else (a secret such as
// credentials_json as Redacted when it is set), in go-sql-spanner's
// spelling: durations as Go writes them ("10s"), isolation_level as
// "Default" or "Repeatable Read", autocommit_dml_mode as "Transactional",
// priorities as "PRIORITY_LOW", read_lock_mode as "OPTIMISTIC",
// read_only_staleness as "(exactStaleness: 10s)", and the int properties
// (num_channels, min_sessions, ...) as decimal text. Errors are as Get's.
func (c *Config) Value(key string) (any, error) {
	p, err := c.readable(key)
	if err != nil {
		return nil, err
	}
	if p.show != nil {
		return p.show(c), nil
	}
	return p.quotable(p.get(c)), nil
}

func (c *Config) readable(key string) (*property, error) {
	p := lookup(key)
	if p == nil {
		return nil, unknownKey(strings.TrimSpace(key))
	}
	if err := c.pgOnHere(p, key); err != nil {
		return nil, err
	}
	if p.get == nil && p.show != nil {
		return p, nil // a read-only setting with a value of its own (server_version)
	}
	if p.get == nil {
		return nil, readOnly(p.name, "", "read-only property kept by the connection, not by Config")
	}
	return p, nil
}
