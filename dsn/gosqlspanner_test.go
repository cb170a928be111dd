package dsn_test

import (
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/dsn"
)

// goSQLSpannerProps is every connection property go-sql-spanner declares
// at HEAD (connection_properties.go, the createConnectionProperty and
// createReadOnlyConnectionProperty calls, in their order), with a value in
// the spelling its converter accepts and what that value must do to the
// configuration here. A test fixture: when go-sql-spanner adds a property,
// add its row.
var goSQLSpannerProps = []struct {
	name, value string
	// set reports whether the value took effect; nil for a property
	// handled elsewhere (skip says where).
	set  func(c *dsn.Config) bool
	skip string
}{
	{"connection_state_type", "NonTransactional", func(c *dsn.Config) bool { return c.ConnectionStateType == dsn.ConnectionStateNonTransactional }, ""},
	{"dialect", "POSTGRESQL", func(c *dsn.Config) bool { return c.Dialect == dsn.DialectPostgreSQL }, ""},
	{"auto_config_emulator", "true", func(c *dsn.Config) bool { return c.AutoConfigEmulator }, ""},
	{"isolation_level", "repeatable read", func(c *dsn.Config) bool { return c.IsolationLevel == sql.LevelRepeatableRead }, ""},
	{"read_lock_mode", "OPTIMISTIC", func(c *dsn.Config) bool { return c.ReadLockMode == dsn.ReadLockModeOptimistic }, ""},
	{"begin_transaction_option", "ExplicitBeginTransaction", func(c *dsn.Config) bool { return c.BeginTransactionOption == dsn.BeginTransactionExplicit }, ""},
	{"autocommit_dml_mode", "PartitionedNonAtomic", func(c *dsn.Config) bool { return c.AutocommitDMLMode == dsn.AutocommitPartitionedNonAtomic }, ""},
	{"retry_aborts_internally", "false", func(c *dsn.Config) bool { return !c.RetryAbortsInternally }, ""},
	{"read_only_staleness", "EXACT_STALENESS 10s", func(c *dsn.Config) bool { return c.ReadOnlyStaleness == dsn.ExactStaleness(10*time.Second) }, ""},
	{"default_sequence_kind", "bit_reversed_positive", func(c *dsn.Config) bool { return c.DefaultSequenceKind == "bit_reversed_positive" }, ""},
	{"auto_partition_mode", "true", func(c *dsn.Config) bool { return c.AutoPartitionMode }, ""},
	{"data_boost_enabled", "true", func(c *dsn.Config) bool { return c.DataBoostEnabled }, ""},
	{"max_partitions", "10", func(c *dsn.Config) bool { return c.MaxPartitions == 10 }, ""},
	{"max_partitioned_parallelism", "4", func(c *dsn.Config) bool { return c.MaxPartitionedParallelism == 4 }, ""},
	{"auto_batch_dml", "true", func(c *dsn.Config) bool { return c.AutoBatchDML }, ""},
	{"auto_batch_dml_update_count", "2", func(c *dsn.Config) bool { return c.AutoBatchDMLUpdateCount == 2 }, ""},
	{"auto_batch_dml_update_count_verification", "false", func(c *dsn.Config) bool { return !c.AutoBatchDMLUpdateCountVerification }, ""},
	{"rpc_priority", "PRIORITY_HIGH", func(c *dsn.Config) bool { return c.RPCPriority == dsn.PriorityHigh }, ""},
	{"optimizer_version", "1", func(c *dsn.Config) bool { return c.OptimizerVersion == "1" }, ""},
	{"optimizer_statistics_package", "latest", func(c *dsn.Config) bool { return c.OptimizerStatisticsPackage == "latest" }, ""},
	{"decode_to_native_arrays", "true", func(c *dsn.Config) bool { return c.DecodeToNativeArrays }, ""},
	{"decode_numeric_to_string", "true", func(c *dsn.Config) bool { return c.DecodeNumericToString }, ""},
	{"send_typed_strings", "true", func(c *dsn.Config) bool { return c.SendTypedStrings }, ""},
	{"ddl_execution_mode", "ASYNC", func(c *dsn.Config) bool { return c.DDLExecutionMode == dsn.DDLAsync }, ""},
	{"ddl_async_wait_timeout", "5s", func(c *dsn.Config) bool { return c.DDLAsyncWaitTimeout == 5*time.Second }, ""},
	{"transaction_read_only", "true", func(c *dsn.Config) bool { return c.TransactionReadOnly }, ""},
	{"transaction_deferrable", "true", func(c *dsn.Config) bool { return c.TransactionDeferrable }, ""},
	{"exclude_txn_from_change_streams", "true", func(c *dsn.Config) bool { return c.ExcludeTxnFromChangeStreams }, ""},
	{"transaction_tag", "t", func(c *dsn.Config) bool { return c.TransactionTag == "t" }, ""},
	{"max_commit_delay", "100ms", func(c *dsn.Config) bool { return c.MaxCommitDelay == 100*time.Millisecond }, ""},
	{"directed_read", `{"includeReplicas":{"replicaSelections":[{"location":"us-east1"}]}}`, func(c *dsn.Config) bool { return c.DirectedRead != "" }, ""},
	{"commit_priority", "LOW", func(c *dsn.Config) bool { return c.CommitPriority == dsn.PriorityLow }, ""},
	{"return_commit_stats", "true", func(c *dsn.Config) bool { return c.ReturnCommitStats }, ""},
	{"transaction_batch_read_only", "true", func(c *dsn.Config) bool { return c.TransactionBatchReadOnly }, ""},
	{"transaction_timeout", "10s", func(c *dsn.Config) bool { return c.TransactionTimeout == 10*time.Second }, ""},
	{"statement_tag", "s", func(c *dsn.Config) bool { return c.StatementTag == "s" }, ""},
	{"statement_timeout", "10s", func(c *dsn.Config) bool { return c.StatementTimeout == 10*time.Second }, ""},
	{"endpoint", "localhost:9010", func(c *dsn.Config) bool { return c.Endpoint == "localhost:9010" }, ""},
	{"authority", "a.example", func(c *dsn.Config) bool { return c.Authority == "a.example" }, ""},
	{"credentials", "/k.json", func(c *dsn.Config) bool { return c.Credentials == "/k.json" }, ""},
	{"credentials_json", `{"type":"x"}`, func(c *dsn.Config) bool { return c.CredentialsJSON == `{"type":"x"}` }, ""},
	{"use_plain_text", "true", func(c *dsn.Config) bool { return c.UsePlainText }, ""},
	{"disable_native_metrics", "true", func(c *dsn.Config) bool { return c.DisableNativeMetrics }, ""},
	// Accepted with no effect: the one multiplexed session has no pool.
	{"min_sessions", "10", func(c *dsn.Config) bool { return c.MinSessions == 10 }, ""},
	{"max_sessions", "20", func(c *dsn.Config) bool { return c.MaxSessions == 20 }, ""},
	{"num_channels", "8", func(c *dsn.Config) bool { return c.NumChannels == 8 }, ""},
	{"database_role", "r", func(c *dsn.Config) bool { return c.DatabaseRole == "r" }, ""},
	{"disable_route_to_leader", "true", func(c *dsn.Config) bool { return c.DisableRouteToLeader }, ""},
	{"enable_end_to_end_tracing", "true", func(c *dsn.Config) bool { return c.EnableEndToEndTracing }, ""},
	{"statement_cache_size", "5", func(c *dsn.Config) bool { return c.StatementCacheSize == 5 }, ""},
	{"disable_statement_cache", "true", func(c *dsn.Config) bool { return c.DisableStatementCache }, ""},
	{"connect_timeout", "5s", func(c *dsn.Config) bool { return c.ConnectTimeout == 5*time.Second }, ""},
	// The experimental host's: its DSN names the host, and the TLS files
	// apply to it alone (docs/transport.md).
	{"is_experimental_host", "true", func(c *dsn.Config) bool { return c.IsExperimentalHost }, ""},
	{"ca_cert_file", "/ca.pem", func(c *dsn.Config) bool { return c.CACertFile == "/ca.pem" }, ""},
	{"client_cert_file", "/c.pem", func(c *dsn.Config) bool { return c.ClientCertFile == "/c.pem" }, ""},
	{"client_cert_key", "/c.key", func(c *dsn.Config) bool { return c.ClientCertKey == "/c.key" }, ""},
}

// experimentalHostProps apply only to an experimental host: their DSN names
// the host and sets is_experimental_host.
var experimentalHostProps = map[string]bool{
	"is_experimental_host": true, "ca_cert_file": true, "client_cert_file": true, "client_cert_key": true,
}

// goSQLSpannerReadOnly are go-sql-spanner's read-only properties: its DSN
// refuses them (their converter fails), as spannerfast's does, with
// ErrReadOnly. database_dialect is read-only there but a startup property
// here (a known dialect spares the connector a query), so a DSN may give
// it.
var goSQLSpannerReadOnly = []string{"commit_timestamp", "commit_response"}

// TestGoSQLSpannerProperties: every property go-sql-spanner declares is a
// property here, under the same name, and takes a value written as
// go-sql-spanner's converter accepts it in a DSN (native and postgresql://
// forms), with the same meaning; no go-sql-spanner DSN fails with "unknown
// property".
func TestGoSQLSpannerProperties(t *testing.T) {
	for _, p := range goSQLSpannerProps {
		t.Run(p.name, func(t *testing.T) {
			if p.set == nil {
				t.Skipf("%s: %s", p.name, p.skip)
			}
			if got, ok := dsn.CanonicalName(p.name); !ok || got != p.name {
				t.Fatalf("CanonicalName(%s) = %q, %v", p.name, got, ok)
			}
			host, native, url := "", db+";"+p.name+"="+p.value, "postgresql:///"+db+"?"+p.name+"="+urlEscape(p.value)
			if experimentalHostProps[p.name] {
				// An experimental host is named in the DSN, and the TLS
				// files come with both a CA and a client certificate.
				host = "host.internal:15000"
				extra := ";is_experimental_host=true;ca_cert_file=/ca.pem;client_cert_file=/c.pem;client_cert_key=/c.key"
				native = host + "/" + db + extra + ";" + p.name + "=" + p.value
				url = "postgresql://" + host + "/" + db + "?" + strings.ReplaceAll(extra[1:], ";", "&") + "&" + p.name + "=" + urlEscape(p.value)
			}
			for _, s := range []string{native, url} {
				c, err := dsn.Parse(s)
				if err != nil {
					t.Fatalf("Parse(%q): %v", s, err)
				}
				if !p.set(c) {
					t.Fatalf("Parse(%q) did not set %s: %+v", s, p.name, *c)
				}
			}
		})
	}
	for _, n := range goSQLSpannerReadOnly {
		if _, err := dsn.Parse(db + ";" + n + "=x"); !errors.Is(err, dsn.ErrReadOnly) {
			t.Errorf("%s in a DSN: %v, want ErrReadOnly", n, err)
		}
	}
	if c, err := dsn.Parse(db + ";database_dialect=POSTGRESQL"); err != nil || c.DatabaseDialect != dsn.DialectPostgreSQL {
		t.Errorf("database_dialect in a DSN: %v, %v", c, err)
	}
}

// urlEscape writes v as a URL query value.
func urlEscape(v string) string { return url.QueryEscape(v) }
