package dsn_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// propCase is one property: its default as SHOW VARIABLE types it, a
// non-default value as written in a DSN, and how that value shows.
type propCase struct {
	name      string
	wantDef   any
	set       string
	wantSet   any
	startup   bool
	canonical string // FormatDSN's text of set; "" means set itself
}

var propCases = []propCase{
	{name: "endpoint", wantDef: "", set: "dns:///x:1", wantSet: "dns:///x:1", startup: true},
	{name: "authority", wantDef: "", set: "a.example", wantSet: "a.example", startup: true},
	{name: "credentials", wantDef: "", set: "/k.json", wantSet: "/k.json", startup: true},
	{name: "credentials_json", wantDef: "", set: `{"k":"v"}`, wantSet: dsn.Redacted, startup: true}, // SHOW never shows the secret
	{name: "use_plain_text", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "is_experimental_host", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "ca_cert_file", wantDef: "", set: "/ca.pem", wantSet: "/ca.pem", startup: true},
	{name: "client_cert_file", wantDef: "", set: "/c.pem", wantSet: "/c.pem", startup: true},
	{name: "client_cert_key", wantDef: "", set: "/k.pem", wantSet: "/k.pem", startup: true},
	{name: "compression", wantDef: "NONE", set: "gzip", wantSet: "GZIP", startup: true, canonical: "GZIP"},
	{name: "auto_config_emulator", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "disable_native_metrics", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "min_sessions", wantDef: "100", set: "7", wantSet: "7", startup: true},
	{name: "max_sessions", wantDef: "400", set: "9", wantSet: "9", startup: true},
	{name: "num_channels", wantDef: "4", set: "8", wantSet: "8", startup: true},
	{name: "database_role", wantDef: "", set: "reader", wantSet: "reader", startup: true},
	{name: "disable_route_to_leader", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "enable_end_to_end_tracing", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "disable_tracing", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "disable_query_text_in_traces", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "statement_cache_size", wantDef: "1000", set: "5", wantSet: "5", startup: true},
	{name: "disable_statement_cache", wantDef: false, set: "true", wantSet: true, startup: true},
	{name: "connect_timeout", wantDef: "10s", set: "90s", wantSet: "1m30s", startup: true},
	{name: "connection_state_type", wantDef: "0", set: "non_transactional", wantSet: "2", startup: true, canonical: "NON_TRANSACTIONAL"},
	{name: "database_dialect", wantDef: "DATABASE_DIALECT_UNSPECIFIED", set: "PostgreSQL", wantSet: "POSTGRESQL", startup: true, canonical: "POSTGRESQL"},
	{name: "isolation_level", wantDef: "Default", set: "repeatable_read", wantSet: "Repeatable Read", canonical: "REPEATABLE_READ"},
	{name: "dialect", wantDef: "", set: "postgresql", wantSet: "POSTGRESQL", canonical: "POSTGRESQL"},
	{name: "read_lock_mode", wantDef: "READ_LOCK_MODE_UNSPECIFIED", set: "optimistic", wantSet: "OPTIMISTIC", canonical: "OPTIMISTIC"},
	{name: "begin_transaction_option", wantDef: "1", set: "EXPLICIT", wantSet: "2"},
	{name: "autocommit_dml_mode", wantDef: "Transactional", set: "PARTITIONED_NON_ATOMIC", wantSet: "Partitioned_Non_Atomic"},
	{name: "retry_aborts_internally", wantDef: true, set: "false", wantSet: false},
	{name: "savepoint_support", wantDef: "ENABLED", set: "fail_after_rollback", wantSet: "FAIL_AFTER_ROLLBACK", canonical: "FAIL_AFTER_ROLLBACK"},
	{name: "read_only_staleness", wantDef: "(strong)", set: "EXACT_STALENESS 10s", wantSet: "(exactStaleness: 10s)"},
	{name: "rpc_priority", wantDef: "PRIORITY_UNSPECIFIED", set: "LOW", wantSet: "PRIORITY_LOW"},
	{name: "commit_priority", wantDef: "PRIORITY_UNSPECIFIED", set: "HIGH", wantSet: "PRIORITY_HIGH"},
	{name: "optimizer_version", wantDef: "", set: "7", wantSet: "7"},
	{name: "optimizer_statistics_package", wantDef: "", set: "pkg", wantSet: "pkg"},
	{name: "decode_to_native_arrays", wantDef: false, set: "true", wantSet: true},
	{name: "decode_numeric_to_string", wantDef: false, set: "true", wantSet: true},
	{name: "send_typed_strings", wantDef: false, set: "true", wantSet: true},
	{name: "transaction_tag", wantDef: "", set: "t1", wantSet: "t1"},
	{name: "statement_tag", wantDef: "", set: "s1", wantSet: "s1"},
	{name: "max_commit_delay", wantDef: "", set: "100ms", wantSet: "100ms"}, // unset shows "", as in go-sql-spanner
	{name: "statement_timeout", wantDef: "0s", set: "2s", wantSet: "2s"},
	{name: "return_commit_stats", wantDef: false, set: "true", wantSet: true},
	{name: "exclude_txn_from_change_streams", wantDef: false, set: "true", wantSet: true},
	{name: "auto_batch_dml", wantDef: false, set: "true", wantSet: true},
	{name: "auto_batch_dml_update_count", wantDef: int64(1), set: "0", wantSet: int64(0)},
	{name: "auto_batch_dml_update_count_verification", wantDef: true, set: "false", wantSet: false},
	{name: "transaction_read_only", wantDef: false, set: "true", wantSet: true},
	{name: "transaction_deferrable", wantDef: false, set: "true", wantSet: true},
	{name: "transaction_batch_read_only", wantDef: false, set: "true", wantSet: true},
	{name: "transaction_timeout", wantDef: "0s", set: "1500ms", wantSet: "1.5s"},
	{name: "ddl_execution_mode", wantDef: "SYNC", set: "async_wait", wantSet: "ASYNC_WAIT", canonical: "ASYNC_WAIT"},
	{name: "ddl_async_wait_timeout", wantDef: "10s", set: "100ms", wantSet: "100ms"},
	{name: "default_sequence_kind", wantDef: "", set: "bit_reversed_positive", wantSet: "bit_reversed_positive"},
	{name: "directed_read", wantDef: "", set: `{"includeReplicas":{"replicaSelections":[{"location":"us-east1"}]}}`,
		wantSet: `{"includeReplicas":{"replicaSelections":[{"location":"us-east1"}]}}`},
	{name: "auto_partition_mode", wantDef: false, set: "true", wantSet: true},
	{name: "data_boost_enabled", wantDef: false, set: "true", wantSet: true},
	{name: "max_partitions", wantDef: int64(0), set: "12", wantSet: int64(12)},
	{name: "max_partitioned_parallelism", wantDef: int64(1), set: "0", wantSet: int64(0)},
	{name: "raw_decode", wantDef: false, set: "true", wantSet: true},
	{name: "prefetch_messages", wantDef: "4", set: "16", wantSet: "16"},
	{name: "max_buffered_bytes", wantDef: int64(128 << 20), set: "1024", wantSet: int64(1024)},
	{name: "poison_raw_buffers", wantDef: false, set: "true", wantSet: true},
}

var readOnlyProps = []string{"commit_timestamp", "commit_response", "read_timestamp"}

// TestEveryPropertyCovered: the table above names every property, so a new
// property cannot go untested.
func TestEveryPropertyCovered(t *testing.T) {
	seen := map[string]bool{}
	for _, pc := range propCases {
		seen[pc.name] = true
	}
	for _, n := range readOnlyProps {
		seen[n] = true
	}
	for _, pc := range pgCases {
		seen[pc.name] = true
	}
	for _, n := range dsn.Properties() {
		if !seen[n] {
			t.Errorf("property %s has no row in propCases", n)
		}
		delete(seen, n)
	}
	for n := range seen {
		t.Errorf("propCases names %s, which is not a property", n)
	}
}

func TestPropertyTable(t *testing.T) {
	for _, pc := range propCases {
		t.Run(pc.name, func(t *testing.T) {
			c := dsn.NewConfig()
			if v, err := c.Value(pc.name); err != nil || v != pc.wantDef {
				t.Errorf("default Value = %#v (%T), %v; want %#v (%T)", v, v, err, pc.wantDef, pc.wantDef)
			}
			// In a DSN.
			c, err := dsn.Parse(db + ";" + pc.name + "=" + pc.set)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := c.Value(pc.name); err != nil || v != pc.wantSet {
				t.Errorf("Value after the DSN = %#v (%T), %v; want %#v (%T)", v, v, err, pc.wantSet, pc.wantSet)
			}
			text := c.FormatDSN()
			want := pc.canonical
			if want == "" {
				want = pc.set
			}
			if pc.name == "endpoint" {
				if !strings.Contains(text, "endpoint="+want) {
					t.Errorf("FormatDSN() = %q, want it to carry endpoint=%s", text, want)
				}
			} else if !strings.HasSuffix(text, ";"+pc.name+"="+want) {
				t.Errorf("FormatDSN() = %q, want it to end with ;%s=%s", text, pc.name, want)
			}
			back, err := dsn.Parse(text)
			if err != nil || !back.Equal(c) {
				t.Errorf("Parse(FormatDSN()) = %v, %v; want an equal Config", back.FormatDSN(), err)
			}
			// With Set and SetVariable.
			c2 := dsn.NewConfig()
			if err := c2.Set(strings.ToUpper(pc.name), pc.set); err != nil {
				t.Fatal(err)
			}
			if v, _ := c2.Value(pc.name); v != pc.wantSet {
				t.Errorf("Value after Set = %#v, want %#v", v, pc.wantSet)
			}
			c3 := dsn.NewConfig()
			err = c3.SetVariable(pc.name, pc.set)
			if pc.startup {
				if !errors.Is(err, dsn.ErrReadOnly) || status.Code(err) != codes.FailedPrecondition {
					t.Errorf("SetVariable of a startup property = %v (%v), want ErrReadOnly, FailedPrecondition", err, status.Code(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := c3.Value(pc.name); v != pc.wantSet {
				t.Errorf("Value after SetVariable = %#v, want %#v", v, pc.wantSet)
			}
			// NULL sets the default, as in go-sql-spanner.
			if err := c3.SetVariable(pc.name, "null"); err != nil {
				t.Fatal(err)
			}
			if v, _ := c3.Value(pc.name); v != pc.wantDef {
				t.Errorf("Value after SET NULL = %#v, want the default %#v", v, pc.wantDef)
			}
		})
	}
}

func TestReadOnlyProperties(t *testing.T) {
	for _, name := range readOnlyProps {
		_, err := dsn.Parse(db + ";" + name + "=x")
		if !errors.Is(err, dsn.ErrReadOnly) || !errors.Is(err, dsn.ErrInvalidValue) || status.Code(err) != codes.FailedPrecondition {
			t.Errorf("%s in a DSN: %v (%v), want ErrReadOnly and FailedPrecondition", name, err, status.Code(err))
		}
		var e *dsn.Error
		if !errors.As(err, &e) || e.Key != name {
			t.Errorf("%s: error %v does not name the property", name, err)
		}
		if _, err := dsn.NewConfig().Value(name); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("Value(%s) = %v, want FailedPrecondition", name, err)
		}
	}
}

func TestErrorCodes(t *testing.T) {
	for _, tt := range []struct {
		dsn  string
		kind error
		code codes.Code
	}{
		{db + ";connect_timeout=soon", dsn.ErrInvalidValue, codes.InvalidArgument},
		{db + ";ddl_execution_mode=later", dsn.ErrInvalidValue, codes.InvalidArgument},
		{db + ";default_sequence_kind=x')--", dsn.ErrInvalidValue, codes.InvalidArgument},
		{db + ";directed_read={", dsn.ErrInvalidValue, codes.InvalidArgument},
		{db + ";max_partitions=-1", dsn.ErrInvalidValue, codes.InvalidArgument},
		{db + ";no_such=1", dsn.ErrUnknownProperty, codes.InvalidArgument},
		{"projects/p", dsn.ErrMalformed, codes.InvalidArgument},
		{db + ";commit_response=x", dsn.ErrReadOnly, codes.FailedPrecondition},
	} {
		_, err := dsn.Parse(tt.dsn)
		if !errors.Is(err, tt.kind) || status.Code(err) != tt.code {
			t.Errorf("Parse(%q) = %v (%v), want %v with %v", tt.dsn, err, status.Code(err), tt.kind, tt.code)
		}
		// Wrapping keeps both.
		w := fmt.Errorf("open: %w", err)
		if !errors.Is(w, tt.kind) || status.Code(w) != tt.code {
			t.Errorf("wrapped %q: %v (%v)", tt.dsn, w, status.Code(w))
		}
	}
	var e *dsn.Error
	if err := dsn.NewConfig().SetVariable("unknown_x", "1"); !errors.As(err, &e) || status.Code(err) != codes.InvalidArgument {
		t.Errorf("SetVariable(unknown) = %v", err)
	}
}

const secretJSON = `{"type":"service_account","private_key":"TOPSECRET"}`

func TestRedaction(t *testing.T) {
	c, err := dsn.Parse(db + ";credentials_json=" + secretJSON + ";rpc_priority=LOW")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.FormatDSN(), "TOPSECRET") {
		t.Fatalf("FormatDSN() = %q lost the credentials", c.FormatDSN())
	}
	back, err := dsn.Parse(c.FormatDSN())
	if err != nil || !back.Equal(c) {
		t.Fatalf("FormatDSN does not round-trip: %v", err)
	}
	outputs := map[string]string{
		"String":     c.String(),
		"%v ptr":     fmt.Sprintf("%v", c),
		"%+v ptr":    fmt.Sprintf("%+v", c),
		"%s ptr":     fmt.Sprintf("%s", c),
		"%q ptr":     fmt.Sprintf("%q", c),
		"%#v ptr":    fmt.Sprintf("%#v", c),
		"%v value":   fmt.Sprintf("%v", *c),
		"%+v value":  fmt.Sprintf("%+v", *c),
		"%#v value":  fmt.Sprintf("%#v", *c),
		"%d value":   fmt.Sprintf("%d", *c),
		"GoString":   c.GoString(),
		"in a slice": fmt.Sprintf("%+v", []*dsn.Config{c}),
		"in struct":  fmt.Sprintf("%+v", struct{ C dsn.Config }{*c}),
	}
	for what, out := range outputs {
		if strings.Contains(out, "TOPSECRET") {
			t.Errorf("%s leaks the secret: %s", what, out)
		}
		if !strings.Contains(out, dsn.Redacted) {
			t.Errorf("%s does not show that a secret was redacted: %s", what, out)
		}
	}
	if s := c.String(); !strings.Contains(s, "rpc_priority=LOW") || !strings.Contains(s, "credentials_json="+dsn.Redacted) {
		t.Errorf("String() = %q, want the other properties and a redacted credentials_json", s)
	}
	if g := c.GoString(); !strings.HasPrefix(g, "dsn.Config{") || !strings.Contains(g, `RPCPriority:"LOW"`) {
		t.Errorf("GoString() = %s", g)
	}
	// No secret, nothing redacted; String equals FormatDSN.
	plain, _ := dsn.Parse(db + ";rpc_priority=LOW")
	if plain.String() != plain.FormatDSN() || strings.Contains(fmt.Sprint(plain), dsn.Redacted) {
		t.Errorf("String() = %q, FormatDSN() = %q", plain.String(), plain.FormatDSN())
	}
	// Printing does not change the Config.
	if c.CredentialsJSON != secretJSON {
		t.Errorf("formatting changed CredentialsJSON to %q", c.CredentialsJSON)
	}
	// A Validate error about the secret does not quote it.
	c.CredentialsJSON = `{"k":"TOPSECRET;x"}`
	if err := c.Validate(); err == nil || strings.Contains(err.Error(), "TOPSECRET") {
		t.Errorf("Validate() = %v, want an error that does not quote the secret", err)
	}
	// SetVariable refuses credentials_json without quoting it.
	if err := dsn.NewConfig().SetVariable("credentials_json", secretJSON); err == nil || strings.Contains(err.Error(), "TOPSECRET") {
		t.Errorf("SetVariable(credentials_json) = %v", err)
	}
}

func TestCanonicalName(t *testing.T) {
	if n, ok := dsn.CanonicalName("commitTimestamp"); !ok || n != "commit_timestamp" {
		t.Errorf("CanonicalName(commitTimestamp) = %q, %v", n, ok)
	}
	if _, ok := dsn.CanonicalName("x.y"); ok {
		t.Error("CanonicalName(x.y) is known")
	}
}

func TestStalenessValue(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 500000000, time.UTC)
	for _, tt := range []struct {
		s    dsn.Staleness
		want string
	}{
		{dsn.MaxStaleness(1500 * time.Millisecond), "(maxStaleness: 1.5s)"},
		{dsn.ReadTimestamp(ts), "(readTimestamp: 2024-01-02 03:04:05.5 +0000 UTC)"},
		{dsn.MinReadTimestamp(ts), "(minReadTimestamp: 2024-01-02 03:04:05.5 +0000 UTC)"},
	} {
		c := dsn.NewConfig()
		c.ReadOnlyStaleness = tt.s
		if v, _ := c.Value("read_only_staleness"); v != tt.want {
			t.Errorf("Value = %q, want %q", v, tt.want)
		}
	}
}
