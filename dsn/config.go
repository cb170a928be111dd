package dsn

import (
	"database/sql"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// Defaults for the properties whose default is not the Go zero value.
const (
	DefaultMinSessions        = 100
	DefaultMaxSessions        = 400
	DefaultNumChannels        = 4
	DefaultStatementCacheSize = 1000
	DefaultPrefetchMessages   = 4
	DefaultMaxBufferedBytes   = 128 << 20

	// DefaultDDLAsyncWaitTimeout is ddl_async_wait_timeout's default.
	DefaultDDLAsyncWaitTimeout = 10 * time.Second
	// DefaultConnectTimeout is connect_timeout's default: reaching
	// Spanner's front end (TCP, TLS, HTTP/2) and creating the multiplexed
	// session take well under a second wherever the endpoint is reachable,
	// so ten seconds leave an order of magnitude for a slow network or a
	// slow credentials lookup, while an application without a deadline of
	// its own learns of a wrong or unreachable endpoint in seconds instead
	// of waiting forever.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultAutoBatchDMLUpdateCount is auto_batch_dml_update_count's
	// default.
	DefaultAutoBatchDMLUpdateCount = 1
	// DefaultMaxPartitionedParallelism is max_partitioned_parallelism's
	// default.
	DefaultMaxPartitionedParallelism = 1

	// DefaultEndpoint is the endpoint used when neither the DSN nor
	// SPANNER_EMULATOR_HOST names one (and auto_config_emulator is off).
	DefaultEndpoint = "spanner.googleapis.com:443"
	// DefaultEmulatorEndpoint is the endpoint auto_config_emulator=true uses
	// when the DSN names none.
	DefaultEmulatorEndpoint = "localhost:9010"
)

// Limits checked by Parse and Validate.
const (
	MaxNumChannels      = 256
	MinPrefetchMessages = 1
	MaxPrefetchMessages = 1024
)

// Priority is the value of rpc_priority and commit_priority.
type Priority string

// Priority values.
const (
	PriorityUnspecified Priority = "UNSPECIFIED"
	PriorityLow         Priority = "LOW"
	PriorityMedium      Priority = "MEDIUM"
	PriorityHigh        Priority = "HIGH"
)

// Proto returns the RequestOptions priority for p (PRIORITY_UNSPECIFIED for
// an unknown value).
func (p Priority) Proto() spannerpb.RequestOptions_Priority {
	switch p {
	case PriorityLow:
		return spannerpb.RequestOptions_PRIORITY_LOW
	case PriorityMedium:
		return spannerpb.RequestOptions_PRIORITY_MEDIUM
	case PriorityHigh:
		return spannerpb.RequestOptions_PRIORITY_HIGH
	}
	return spannerpb.RequestOptions_PRIORITY_UNSPECIFIED
}

// ReadLockMode is the value of read_lock_mode.
type ReadLockMode string

// ReadLockMode values.
const (
	ReadLockModeUnspecified ReadLockMode = "UNSPECIFIED"
	ReadLockModePessimistic ReadLockMode = "PESSIMISTIC"
	ReadLockModeOptimistic  ReadLockMode = "OPTIMISTIC"
)

// Proto returns the read lock mode for a read-write TransactionOptions.
func (m ReadLockMode) Proto() spannerpb.TransactionOptions_ReadWrite_ReadLockMode {
	switch m {
	case ReadLockModePessimistic:
		return spannerpb.TransactionOptions_ReadWrite_PESSIMISTIC
	case ReadLockModeOptimistic:
		return spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC
	}
	return spannerpb.TransactionOptions_ReadWrite_READ_LOCK_MODE_UNSPECIFIED
}

// BeginTransactionOption is the value of begin_transaction_option: how a
// transaction is started.
type BeginTransactionOption string

// BeginTransactionOption values.
const (
	// BeginTransactionInline begins the transaction with its first
	// statement (the default; the value DEFAULT means this too).
	BeginTransactionInline BeginTransactionOption = "INLINE"
	// BeginTransactionExplicit begins with a BeginTransaction RPC.
	BeginTransactionExplicit BeginTransactionOption = "EXPLICIT"
)

// SavepointSupport is the value of savepoint_support: what savepoints may
// do (the JDBC driver's values; docs/transactions.md#savepoints).
type SavepointSupport string

// SavepointSupport values.
const (
	// SavepointsEnabled (the default): ROLLBACK TO a savepoint rolls the
	// transaction back and replays the statements before the savepoint.
	SavepointsEnabled SavepointSupport = "ENABLED"
	// SavepointsFailAfterRollback: savepoints may be set and released, but
	// ROLLBACK TO a savepoint of a read-write transaction rolls it back
	// without a replay and the transaction fails from then on.
	SavepointsFailAfterRollback SavepointSupport = "FAIL_AFTER_ROLLBACK"
	// SavepointsDisabled: SAVEPOINT fails.
	SavepointsDisabled SavepointSupport = "DISABLED"
)

// AutocommitDMLMode is the value of autocommit_dml_mode.
type AutocommitDMLMode string

// AutocommitDMLMode values.
const (
	// AutocommitTransactional runs each autocommit DML statement in its own
	// read-write transaction (the default).
	AutocommitTransactional AutocommitDMLMode = "TRANSACTIONAL"
	// AutocommitPartitionedNonAtomic runs it as partitioned DML.
	AutocommitPartitionedNonAtomic AutocommitDMLMode = "PARTITIONED_NON_ATOMIC"
)

// Compression is the value of compression: how requests and responses
// are compressed on the wire.
type Compression string

// Compression values.
const (
	CompressionNone Compression = "NONE"
	CompressionGzip Compression = "GZIP"
)

// ConnectionStateType is the value of connection_state_type: whether SET
// inside a transaction is undone by a rollback.
type ConnectionStateType string

// ConnectionStateType values.
const (
	// ConnectionStateDefault means the dialect's default: TRANSACTIONAL on
	// a PostgreSQL-dialect database, NON_TRANSACTIONAL on a GoogleSQL one
	// (see Config.StateType).
	ConnectionStateDefault          ConnectionStateType = "DEFAULT"
	ConnectionStateTransactional    ConnectionStateType = "TRANSACTIONAL"
	ConnectionStateNonTransactional ConnectionStateType = "NON_TRANSACTIONAL"
)

// DDLExecutionMode is the value of ddl_execution_mode: how long a DDL
// statement waits for its long-running operation.
type DDLExecutionMode string

// DDLExecutionMode values.
const (
	DDLSync      DDLExecutionMode = "SYNC" // wait for the operation (default)
	DDLAsync     DDLExecutionMode = "ASYNC"
	DDLAsyncWait DDLExecutionMode = "ASYNC_WAIT" // wait up to ddl_async_wait_timeout
)

// DatabaseDialect is the value of database_dialect.
type DatabaseDialect string

// DatabaseDialect values, spelled as databasepb.DatabaseDialect.
// DialectUnspecified means no choice made: for database_dialect, that the
// connector learns the dialect from the database when it first connects;
// for dialect, that a new database gets database_dialect's.
const (
	DialectUnspecified DatabaseDialect = "DATABASE_DIALECT_UNSPECIFIED"
	DialectGoogleSQL   DatabaseDialect = "GOOGLE_STANDARD_SQL"
	DialectPostgreSQL  DatabaseDialect = "POSTGRESQL"
)

// Config is a parsed DSN. Build one with NewConfig (which sets the defaults)
// or Parse; a zero Config is not valid. FormatDSN formats it back to
// a DSN that Parse turns into an equal Config.
//
// Which properties the driver honours today and which are accepted for later
// is listed in the package documentation.
type Config struct {
	// Endpoint is "host:port" of the Spanner API: the HOST[:PORT] prefix of
	// the DSN, overridden by endpoint=. Empty means SPANNER_EMULATOR_HOST if
	// set, else DefaultEmulatorEndpoint with auto_config_emulator, else
	// DefaultEndpoint.
	Endpoint string
	// Project, Instance and Database are the ids from the DSN path.
	// Database may be empty in a DSN; the driver needs it to open sessions.
	Project  string
	Instance string
	Database string

	// ---- Startup properties (fixed for the lifetime of a connector) ----

	// Authority (authority) overrides the :authority header and the TLS
	// server name, for private endpoints whose name differs from the
	// certificate.
	Authority string
	// Credentials (credentials) is the path of a credentials JSON file.
	Credentials string
	// CredentialsJSON (credentials_json) is the credentials JSON itself.
	CredentialsJSON string
	// UsePlainText (use_plain_text) connects without TLS and without
	// credentials (the emulator).
	UsePlainText bool
	// AutoConfigEmulator (auto_config_emulator) connects to the emulator at
	// DefaultEmulatorEndpoint (unless an endpoint is given) in plain text and
	// creates the instance and database if they do not exist.
	AutoConfigEmulator bool
	// DisableNativeMetrics (disable_native_metrics) turns off the official
	// client's built-in metrics (the attempt and operation counts and
	// latencies): their export to Cloud Monitoring (internal/nativemetrics),
	// as in go-sql-spanner, and the spanner/client/ ones in the
	// application's pipeline; the driver's own metrics (db.client.*,
	// spannerfast.*) stay (docs/observability.md).
	DisableNativeMetrics bool
	// MinSessions (min_sessions) is accepted and has no effect: all
	// connections share one multiplexed session.
	MinSessions int
	// MaxSessions (max_sessions) is accepted and has no effect (see
	// MinSessions).
	MaxSessions int
	// NumChannels (num_channels) is how many gRPC channels the connector
	// opens and uses round-robin (1..MaxNumChannels, default 4; 0 in a DSN
	// means the default).
	NumChannels int
	// DatabaseRole (database_role) is the fine-grained access control role
	// the session is created with.
	DatabaseRole string
	// DisableRouteToLeader (disable_route_to_leader) stops sending
	// x-goog-spanner-route-to-leader on read-write work.
	DisableRouteToLeader bool
	// EnableEndToEndTracing (enable_end_to_end_tracing) asks Spanner for
	// server-side traces (x-goog-spanner-end-to-end-tracing header) and
	// sends the trace context (traceparent) of the span in an RPC's
	// context when it records.
	EnableEndToEndTracing bool
	// IsExperimentalHost (is_experimental_host) says the endpoint is an
	// experimental host, as in go-sql-spanner: it needs an endpoint, and
	// only then do CACertFile, ClientCertFile and ClientCertKey apply.
	IsExperimentalHost bool
	// CACertFile (ca_cert_file) is a PEM file of the CAs that verify the
	// experimental host's certificate; with it the channels carry no
	// Google credentials (docs/transport.md).
	CACertFile string
	// ClientCertFile (client_cert_file) and ClientCertKey
	// (client_cert_key) are the PEM certificate and key presented to the
	// experimental host for mutual TLS; both or neither.
	ClientCertFile string
	ClientCertKey  string
	// Compression (compression) compresses requests and asks for
	// compressed responses: CompressionNone (default) or CompressionGzip,
	// the official client's ClientConfig.Compression.
	Compression Compression
	// DisableTracing (disable_tracing) makes no OpenTelemetry spans; the
	// metrics are still recorded (docs/observability.md).
	DisableTracing bool
	// DisableQueryTextInTraces (disable_query_text_in_traces) leaves the
	// statements' text (db.query.text) out of spans.
	DisableQueryTextInTraces bool
	// StatementCacheSize (statement_cache_size) is the number of parsed
	// statements cached per connector (default 1000; 0 in a DSN means the
	// default).
	StatementCacheSize int
	// DisableStatementCache (disable_statement_cache) turns the statement
	// cache off.
	DisableStatementCache bool
	// ConnectTimeout (connect_timeout) bounds reaching the endpoint and the
	// creation of the session (and the emulator set-up); an endpoint not
	// reached within it fails with UNAVAILABLE naming it. Default
	// DefaultConnectTimeout; 0 means only the caller's context bounds it.
	ConnectTimeout time.Duration
	// ConnectionStateType (connection_state_type): TRANSACTIONAL makes SET
	// in a transaction part of it (undone by its rollback); DEFAULT is the
	// database dialect's default (StateType).
	ConnectionStateType ConnectionStateType
	// DatabaseDialect (database_dialect) is the dialect of the database.
	// DialectUnspecified (the default) makes the connector ask the
	// database when it first connects, as go-sql-spanner does; a dialect
	// given here is taken as the database's without asking. Connections
	// see the dialect in effect here (SHOW VARIABLE database_dialect).
	DatabaseDialect DatabaseDialect

	// ---- Per-connection properties (defaults for each connection; SET
	// changes them on one connection) ----

	// Dialect (dialect) is the dialect of a database this connection
	// creates: the one auto_config_emulator creates and CREATE DATABASE.
	// DialectUnspecified (the default) means the database's own dialect
	// (DatabaseDialect); it never changes an existing database.
	Dialect DatabaseDialect

	// IsolationLevel (isolation_level) is the default isolation of
	// read-write transactions: sql.LevelDefault, LevelSerializable,
	// LevelRepeatableRead or LevelSnapshot (REPEATABLE_READ on the wire).
	IsolationLevel sql.IsolationLevel
	// ReadLockMode (read_lock_mode) is the read-write lock mode.
	ReadLockMode ReadLockMode
	// BeginTransactionOption (begin_transaction_option): inline (default) or
	// explicit BeginTransaction.
	BeginTransactionOption BeginTransactionOption
	// AutocommitDMLMode (autocommit_dml_mode) is how DML outside a
	// transaction runs.
	AutocommitDMLMode AutocommitDMLMode
	// RetryAbortsInternally (retry_aborts_internally, default true) replays
	// aborted read-write transactions.
	RetryAbortsInternally bool
	// SavepointSupport (savepoint_support, default ENABLED) is what
	// savepoints may do.
	SavepointSupport SavepointSupport
	// ReadOnlyStaleness (read_only_staleness) is the timestamp bound of
	// read-only transactions and single-use queries (default STRONG).
	ReadOnlyStaleness Staleness
	// RPCPriority (rpc_priority) is the priority of every request.
	RPCPriority Priority
	// CommitPriority (commit_priority) is the priority of Commit requests.
	CommitPriority Priority
	// OptimizerVersion (optimizer_version) goes into QueryOptions.
	OptimizerVersion string
	// OptimizerStatisticsPackage (optimizer_statistics_package) goes into
	// QueryOptions.
	OptimizerStatisticsPackage string
	// DecodeToNativeArrays (decode_to_native_arrays) returns []bool, []int64,
	// ... instead of []spanner.NullBool, ... for arrays.
	DecodeToNativeArrays bool
	// DecodeNumericToString (decode_numeric_to_string) returns NUMERIC as a
	// string instead of big.Rat.
	DecodeNumericToString bool
	// SendTypedStrings (send_typed_strings) sends string arguments as
	// STRING and ARRAY<STRING> instead of untyped, so that Spanner need not
	// infer their type (SELECT @greeting has nothing to infer it from).
	SendTypedStrings bool
	// TransactionTag (transaction_tag) tags the next read-write transaction.
	TransactionTag string
	// StatementTag (statement_tag) tags the next statement.
	StatementTag string
	// MaxCommitDelay (max_commit_delay) lets Spanner delay commits for
	// throughput (Spanner accepts up to 500ms); 0 means not set unless
	// MaxCommitDelayZero says it was set to 0.
	MaxCommitDelay time.Duration
	// MaxCommitDelayZero records that max_commit_delay was set to 0
	// explicitly: SHOW VARIABLE answers "0s" then and "" when it is unset.
	MaxCommitDelayZero bool
	// StatementTimeout (statement_timeout) bounds each statement; 0 means no
	// timeout.
	StatementTimeout time.Duration
	// ReturnCommitStats (return_commit_stats) asks Commit for statistics.
	ReturnCommitStats bool
	// ExcludeTxnFromChangeStreams (exclude_txn_from_change_streams) keeps
	// writes out of change streams.
	ExcludeTxnFromChangeStreams bool

	// AutoBatchDML (auto_batch_dml) buffers DML in read-write transactions
	// and sends it as one batch.
	AutoBatchDML bool
	// AutoBatchDMLUpdateCount (auto_batch_dml_update_count, default 1) is
	// the update count returned for a buffered DML statement.
	AutoBatchDMLUpdateCount int64
	// AutoBatchDMLUpdateCountVerification
	// (auto_batch_dml_update_count_verification, default true) checks the
	// real update counts against the returned ones.
	AutoBatchDMLUpdateCountVerification bool
	// TransactionReadOnly (transaction_read_only) makes transactions
	// read-only by default.
	TransactionReadOnly bool
	// TransactionDeferrable (transaction_deferrable) exists for PostgreSQL
	// compatibility and does nothing on Spanner.
	TransactionDeferrable bool
	// TransactionBatchReadOnly (transaction_batch_read_only) makes read-only
	// transactions batch read-only transactions.
	TransactionBatchReadOnly bool
	// TransactionTimeout (transaction_timeout) bounds read-write
	// transactions; 0 means no timeout.
	TransactionTimeout time.Duration
	// DDLExecutionMode (ddl_execution_mode, default SYNC) is how long DDL
	// waits for its operation.
	DDLExecutionMode DDLExecutionMode
	// DDLAsyncWaitTimeout (ddl_async_wait_timeout, default 10s) bounds the
	// wait of ASYNC_WAIT.
	DDLAsyncWaitTimeout time.Duration
	// DefaultSequenceKind (default_sequence_kind, default "": off) is the
	// sequence kind set as the database's default_sequence_kind option when
	// DDL fails because the database has none (CREATE SEQUENCE, AUTO_INCREMENT
	// or IDENTITY columns without a kind); the DDL is then sent again.
	DefaultSequenceKind string
	// DirectedRead (directed_read) is a spannerpb.DirectedReadOptions in
	// protobuf JSON for read-only work; empty means none.
	DirectedRead string
	// AutoPartitionMode (auto_partition_mode) runs every query as a
	// partitioned query.
	AutoPartitionMode bool
	// DataBoostEnabled (data_boost_enabled) runs partitioned queries with
	// Data Boost.
	DataBoostEnabled bool
	// MaxPartitions (max_partitions) is the partition count hint of
	// partitioned queries; 0 means no hint.
	MaxPartitions int64
	// MaxPartitionedParallelism (max_partitioned_parallelism, default 1) is
	// how many partitions are read at once; 0 means one per CPU.
	MaxPartitionedParallelism int64

	// ---- PostgreSQL settings (postgresql.go): only on a PostgreSQL-dialect
	// database, set with SET on a connection, never in a DSN (FormatDSN
	// leaves them out) ----

	// ApplicationName (application_name) is kept for SHOW; it has no effect
	// on Spanner (go-sql-spanner's is a no-op too).
	ApplicationName string
	// ClientMinMessages (client_min_messages, default notice) is kept for
	// SHOW; Spanner sends no notices.
	ClientMinMessages string
	// ClientEncoding (client_encoding) is UTF8, the only encoding Spanner
	// speaks; SET accepts only that.
	ClientEncoding string
	// TimeZone (timezone, default UTC) is kept for SHOW; it changes
	// nothing else (go-sql-spanner's is a no-op too).
	TimeZone string
	// DefaultTransactionIsolation (default_transaction_isolation) is the
	// isolation of read-write transactions when isolation_level is DEFAULT:
	// sql.LevelDefault (not set: Spanner's default, serializable),
	// LevelSerializable or LevelRepeatableRead (TxnIsolation).
	DefaultTransactionIsolation sql.IsolationLevel

	// ---- spannerfast's own ----

	// RawDecode (raw_decode / rawDecode) selects raw mode. dsn accepts it;
	// the driver decides whether it is supported.
	RawDecode bool
	// PrefetchMessages (prefetch_messages, 1..1024, default 4) is how many
	// PartialResultSet messages are read ahead per stream.
	PrefetchMessages int
	// MaxBufferedBytes (max_buffered_bytes, bytes, default 128 MiB) is how
	// much a stream buffers without a resume token before it stops being
	// resumable. A DSN may write it with a KiB, MiB or GiB suffix.
	MaxBufferedBytes int64
	// PoisonRawBuffers (poison_raw_buffers) overwrites released receive
	// buffers so that use after release shows in tests. A test aid: slow.
	PoisonRawBuffers bool
}

// NewConfig returns a Config with every property at its default and no
// project, instance or database.
func NewConfig() *Config {
	return &Config{
		MinSessions:            DefaultMinSessions,
		MaxSessions:            DefaultMaxSessions,
		NumChannels:            DefaultNumChannels,
		Compression:            CompressionNone,
		StatementCacheSize:     DefaultStatementCacheSize,
		IsolationLevel:         sql.LevelDefault,
		ReadLockMode:           ReadLockModeUnspecified,
		Dialect:                DialectUnspecified,
		BeginTransactionOption: BeginTransactionInline,
		AutocommitDMLMode:      AutocommitTransactional,
		RetryAbortsInternally:  true,
		SavepointSupport:       SavepointsEnabled,
		ReadOnlyStaleness:      Staleness{Kind: StalenessStrong},
		RPCPriority:            PriorityUnspecified,
		CommitPriority:         PriorityUnspecified,
		PrefetchMessages:       DefaultPrefetchMessages,
		MaxBufferedBytes:       DefaultMaxBufferedBytes,

		ConnectionStateType:                 ConnectionStateDefault,
		DatabaseDialect:                     DialectUnspecified,
		AutoBatchDMLUpdateCount:             DefaultAutoBatchDMLUpdateCount,
		AutoBatchDMLUpdateCountVerification: true,
		DDLExecutionMode:                    DDLSync,
		DDLAsyncWaitTimeout:                 DefaultDDLAsyncWaitTimeout,
		ConnectTimeout:                      DefaultConnectTimeout,
		MaxPartitionedParallelism:           DefaultMaxPartitionedParallelism,

		ClientMinMessages: "notice",
		ClientEncoding:    "UTF8",
		TimeZone:          "UTC",
	}
}

// StateType returns the connection state type in effect: the
// connection_state_type given, or for DEFAULT the database dialect's
// default, TRANSACTIONAL on PostgreSQL and NON_TRANSACTIONAL otherwise (as
// go-sql-spanner).
func (c *Config) StateType() ConnectionStateType {
	if c.ConnectionStateType != ConnectionStateDefault && c.ConnectionStateType != "" {
		return c.ConnectionStateType
	}
	if c.DatabaseDialect == DialectPostgreSQL {
		return ConnectionStateTransactional
	}
	return ConnectionStateNonTransactional
}

// NewDatabaseDialect returns the dialect of a database this connection
// creates: Dialect when set, else DatabaseDialect.
func (c *Config) NewDatabaseDialect() DatabaseDialect {
	if c.Dialect != "" && c.Dialect != DialectUnspecified {
		return c.Dialect
	}
	return c.DatabaseDialect
}

// DatabasePath returns "projects/P/instances/I/databases/D", or "" when the
// Config has no database.
func (c *Config) DatabasePath() string {
	if c.Database == "" {
		return ""
	}
	return "projects/" + c.Project + "/instances/" + c.Instance + "/databases/" + c.Database
}

// InstancePath returns "projects/P/instances/I".
func (c *Config) InstancePath() string {
	return "projects/" + c.Project + "/instances/" + c.Instance
}

// Clone returns a copy of c. Config holds only values, so the copy shares
// nothing with c.
func (c *Config) Clone() *Config {
	cp := *c
	return &cp
}

// Equal reports whether c and o describe the same configuration (timestamps
// are compared as instants).
func (c *Config) Equal(o *Config) bool {
	if c == nil || o == nil {
		return c == o
	}
	a, b := *c, *o
	a.ReadOnlyStaleness = a.ReadOnlyStaleness.normalized()
	b.ReadOnlyStaleness = b.ReadOnlyStaleness.normalized()
	return a == b
}

// Validate reports whether c can be used and formatted: the path ids are
// well formed, every property is in range, and FormatDSN gives a DSN that
// Parse turns back into c. The error is an *Error naming the field's
// property key.
func (c *Config) Validate() error {
	if err := checkPath(c.Project, c.Instance, c.Database); err != nil {
		return err
	}
	if err := checkTLSProperties(c); err != nil {
		return err
	}
	for i := range properties {
		p := &properties[i]
		if p.get == nil || p.pg {
			continue
		}
		text := p.get(c)
		if p.kind == kindString && hasSep(text) {
			return invalid(p.name, p.quotable(text), "must not contain ';' (values are not quoted)")
		}
		cp := *c
		if err := p.set(&cp, text); err != nil {
			return err
		}
		if !cp.Equal(c) {
			return invalid(p.name, text, "value is out of range or has no text form")
		}
	}
	return nil
}

func hasSep(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == ';' {
			return true
		}
	}
	return false
}
