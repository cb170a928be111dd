package dsn_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spannerfast/spannerfast/dsn"
)

const db = "projects/p/instances/i/databases/d"

func TestParseValid(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	tests := []struct {
		name string
		dsn  string
		want func(c *dsn.Config)
	}{
		{"path only", db, func(c *dsn.Config) {}},
		{"no database", "projects/p/instances/i", func(c *dsn.Config) { c.Database = "" }},
		{"domain project", "projects/example.com:my-proj/instances/i-1/databases/my_db-2",
			func(c *dsn.Config) { c.Project, c.Instance, c.Database = "example.com:my-proj", "i-1", "my_db-2" }},
		{"default project", "projects/DEFAULT_PROJECT_ID/instances/i/databases/d",
			func(c *dsn.Config) { c.Project = "DEFAULT_PROJECT_ID" }},
		{"host", "localhost:9010/" + db, func(c *dsn.Config) { c.Endpoint = "localhost:9010" }},
		{"endpoint overrides host", "localhost:9010/" + db + ";endpoint=other:1",
			func(c *dsn.Config) { c.Endpoint = "other:1" }},
		{"question mark separator", db + "?usePlainText=true", func(c *dsn.Config) { c.UsePlainText = true }},
		{"no database with params", "projects/p/instances/i;use_plain_text=true",
			func(c *dsn.Config) { c.Database = ""; c.UsePlainText = true }},
		{"camel, lower, snake, upper", db + ";usePlainText=true;autoconfigemulator=true;DISABLE_ROUTE_TO_LEADER=1;RawDecode=t",
			func(c *dsn.Config) {
				c.UsePlainText, c.AutoConfigEmulator, c.DisableRouteToLeader, c.RawDecode = true, true, true, true
			}},
		{"empty segments and trailing separator", db + ";;use_plain_text=true;;", func(c *dsn.Config) { c.UsePlainText = true }},
		{"last value wins", db + ";num_channels=2;numChannels=8", func(c *dsn.Config) { c.NumChannels = 8 }},
		{"zero means default", db + ";num_channels=0;statement_cache_size=0", func(c *dsn.Config) {}},
		{"values are raw", db + ";credentials=/a b/c=d.json;database_role= role ;optimizer_version=?x",
			func(c *dsn.Config) {
				c.Credentials, c.DatabaseRole, c.OptimizerVersion = "/a b/c=d.json", " role ", "?x"
			}},
		{"key spaces trimmed", db + "; use_plain_text =true", func(c *dsn.Config) { c.UsePlainText = true }},
		{"startup", db + ";authority=a.example;credentials_json={\"type\":\"x\"};disable_native_metrics=true;" +
			"min_sessions=1;max_sessions=2;num_channels=256;database_role=r;enable_end_to_end_tracing=true;" +
			"statement_cache_size=5;disable_statement_cache=true;connect_timeout=1m30s",
			func(c *dsn.Config) {
				c.Authority, c.CredentialsJSON, c.DisableNativeMetrics = "a.example", `{"type":"x"}`, true
				c.MinSessions, c.MaxSessions, c.NumChannels, c.DatabaseRole = 1, 2, 256, "r"
				c.EnableEndToEndTracing, c.StatementCacheSize, c.DisableStatementCache = true, 5, true
				c.ConnectTimeout = 90 * time.Second
			}},
		{"per connection", db + ";isolation_level=repeatable read;read_lock_mode=optimistic;" +
			"begin_transaction_option=ExplicitBeginTransaction;autocommit_dml_mode=partitioned_non_atomic;" +
			"retry_aborts_internally=false;rpc_priority=PRIORITY_LOW;commit_priority=high;optimizer_version=7;" +
			"optimizer_statistics_package=pkg;decode_to_native_arrays=true;decode_numeric_to_string=true;" +
			"transaction_tag=tt;statement_tag=st;max_commit_delay=100;statement_timeout=5s;" +
			"return_commit_stats=true;exclude_txn_from_change_streams=true",
			func(c *dsn.Config) {
				c.IsolationLevel, c.ReadLockMode = sql.LevelRepeatableRead, dsn.ReadLockModeOptimistic
				c.BeginTransactionOption, c.AutocommitDMLMode = dsn.BeginTransactionExplicit, dsn.AutocommitPartitionedNonAtomic
				c.RetryAbortsInternally, c.RPCPriority, c.CommitPriority = false, dsn.PriorityLow, dsn.PriorityHigh
				c.OptimizerVersion, c.OptimizerStatisticsPackage = "7", "pkg"
				c.DecodeToNativeArrays, c.DecodeNumericToString = true, true
				c.TransactionTag, c.StatementTag = "tt", "st"
				c.MaxCommitDelay, c.StatementTimeout = 100*time.Millisecond, 5*time.Second
				c.ReturnCommitStats, c.ExcludeTxnFromChangeStreams = true, true
			}},
		{"isolation snapshot", db + ";isolation_level=Snapshot", func(c *dsn.Config) { c.IsolationLevel = sql.LevelSnapshot }},
		{"begin default is inline", db + ";begin_transaction_option=DEFAULT", func(c *dsn.Config) {}},
		{"duration NULL", db + ";statement_timeout=NULL", func(c *dsn.Config) {}},
		{"duration us", db + ";statement_timeout=5us", func(c *dsn.Config) { c.StatementTimeout = 5 * time.Microsecond }},
		{"spannerfast own", db + ";raw_decode=true;prefetch_messages=1024;max_buffered_bytes=64MiB;poison_raw_buffers=true",
			func(c *dsn.Config) {
				c.RawDecode, c.PrefetchMessages, c.MaxBufferedBytes, c.PoisonRawBuffers = true, 1024, 64<<20, true
			}},
		{"max buffered plain", db + ";max_buffered_bytes=1000", func(c *dsn.Config) { c.MaxBufferedBytes = 1000 }},
		{"staleness strong", db + ";read_only_staleness=strong", func(c *dsn.Config) {}},
		{"staleness exact", db + ";read_only_staleness=EXACT_STALENESS 10s",
			func(c *dsn.Config) { c.ReadOnlyStaleness = dsn.ExactStaleness(10 * time.Second) }},
		{"staleness max", db + ";read_only_staleness=max_staleness   100ms",
			func(c *dsn.Config) { c.ReadOnlyStaleness = dsn.MaxStaleness(100 * time.Millisecond) }},
		{"staleness read ts", db + ";read_only_staleness=READ_TIMESTAMP 2024-01-02T05:04:05.5+02:00",
			func(c *dsn.Config) { c.ReadOnlyStaleness = dsn.ReadTimestamp(ts) }},
		{"staleness min read ts", db + ";read_only_staleness=min_read_timestamp 2024-01-02t03:04:05.500z",
			func(c *dsn.Config) { c.ReadOnlyStaleness = dsn.MinReadTimestamp(ts) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dsn.Parse(tt.dsn)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.dsn, err)
			}
			want := dsn.NewConfig()
			want.Project, want.Instance, want.Database = "p", "i", "d"
			tt.want(want)
			if *got != *want {
				t.Fatalf("Parse(%q)\n got %+v\nwant %+v", tt.dsn, *got, *want)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			back, err := dsn.Parse(got.FormatDSN())
			if err != nil {
				t.Fatalf("Parse(FormatDSN()=%q): %v", got.FormatDSN(), err)
			}
			if *back != *got {
				t.Fatalf("round trip of %q via %q\n got %+v\nwant %+v", tt.dsn, got.FormatDSN(), *back, *got)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		dsn  string
		kind error
		key  string
		msg  string
	}{
		{"", dsn.ErrMalformed, "",
			`dsn: malformed DSN: empty DSN: want [HOST[:PORT]/]projects/PROJECT/instances/INSTANCE[/databases/DATABASE][;key=value...]`},
		{"mydb", dsn.ErrMalformed, "",
			`dsn: malformed DSN: want [HOST[:PORT]/]projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "mydb"`},
		{"/" + db, dsn.ErrMalformed, "",
			`dsn: malformed DSN: empty host before "projects/p/instances/i/databases/d": drop the leading '/' or name a HOST[:PORT]`},
		{"localhost:9010/p/instances/i", dsn.ErrMalformed, "",
			`dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE] after the host "localhost:9010", got "p/instances/i"`},
		{"projects/p", dsn.ErrMalformed, "",
			`dsn: malformed DSN: missing instance: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "projects/p"`},
		{"projects/p/instances;x=y", dsn.ErrMalformed, "",
			`dsn: malformed DSN: missing instance: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "projects/p/instances"`},
		{"projects/p/inst/i", dsn.ErrMalformed, "",
			`dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "projects/p/inst/i"`},
		{"projects/p/instances/i/databases", dsn.ErrMalformed, "",
			`dsn: malformed DSN: missing database id: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "projects/p/instances/i/databases"`},
		{"projects/p/instances/i/databases/", dsn.ErrMalformed, "",
			`dsn: malformed DSN: missing database id: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "projects/p/instances/i/databases/"`},
		{"projects/p/instances/i/tables/d", dsn.ErrMalformed, "",
			`dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "projects/p/instances/i/tables/d"`},
		{"projects/p/instances/i/databases/d/x", dsn.ErrMalformed, "",
			`dsn: malformed DSN: extra path segments: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE], got "projects/p/instances/i/databases/d/x"`},
		{"projects//instances/i", dsn.ErrMalformed, "",
			`dsn: malformed DSN: empty project id: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE]`},
		{"projects/p/instances/", dsn.ErrMalformed, "",
			`dsn: malformed DSN: empty instance id: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE]`},
		{"projects/P/instances/i", dsn.ErrMalformed, "",
			`dsn: malformed DSN: invalid project id "P": want lowercase letters, digits, '-', '.' and ':'`},
		{"projects/p/instances/my_inst", dsn.ErrMalformed, "",
			`dsn: malformed DSN: invalid instance id "my_inst": want lowercase letters, digits and '-'`},
		{"projects/p/instances/i/databases/My.db", dsn.ErrMalformed, "",
			`dsn: malformed DSN: invalid database id "My.db": want lowercase letters, digits, '-' and '_'`},
		{db + ";useplaintext", dsn.ErrMalformed, "",
			`dsn: malformed DSN: property "useplaintext" has no '=': want key=value, separated by ';'`},
		{db + ";=true", dsn.ErrMalformed, "",
			`dsn: malformed DSN: property "=true" has an empty key: want key=value`},
		{db + ";usePlainTxt=true", dsn.ErrUnknownProperty, "usePlainTxt",
			`dsn: unknown property "usePlainTxt" (did you mean "use_plain_text"?)`},
		{db + ";numchanels=2", dsn.ErrUnknownProperty, "numchanels",
			`dsn: unknown property "numchanels" (did you mean "num_channels"?)`},
		{db + ";retryAbortsInternaly=false", dsn.ErrUnknownProperty, "retryAbortsInternaly",
			`dsn: unknown property "retryAbortsInternaly" (did you mean "retry_aborts_internally"?)`},
		{db + ";raw-decode=true", dsn.ErrUnknownProperty, "raw-decode",
			`dsn: unknown property "raw-decode" (did you mean "raw_decode"?)`},
		{db + ";use_plain_text=yes", dsn.ErrInvalidValue, "use_plain_text",
			`dsn: invalid value "yes" for use_plain_text: want true or false`},
		{db + "?usePlainText=true&retryAbortsInternally=false", dsn.ErrInvalidValue, "use_plain_text",
			`dsn: invalid value "true&retryAbortsInternally=false" for use_plain_text: want true or false (separate properties with ';', not '&')`},
		{db + ";use_plain_text=", dsn.ErrInvalidValue, "use_plain_text",
			`dsn: invalid value "" for use_plain_text: want true or false`},
		{db + ";num_channels=257", dsn.ErrInvalidValue, "num_channels",
			`dsn: invalid value "257" for num_channels: want an integer from 1 to 256 (0 means the default, 4)`},
		{db + ";num_channels=-1", dsn.ErrInvalidValue, "num_channels",
			`dsn: invalid value "-1" for num_channels: want an integer from 1 to 256 (0 means the default, 4)`},
		{db + ";prefetch_messages=0", dsn.ErrInvalidValue, "prefetch_messages",
			`dsn: invalid value "0" for prefetch_messages: want an integer from 1 to 1024`},
		{db + ";prefetchMessages=2048", dsn.ErrInvalidValue, "prefetch_messages",
			`dsn: invalid value "2048" for prefetch_messages: want an integer from 1 to 1024`},
		{db + ";max_buffered_bytes=-5", dsn.ErrInvalidValue, "max_buffered_bytes",
			`dsn: invalid value "-5" for max_buffered_bytes: want a byte count of at least 0, optionally with a KiB, MiB or GiB suffix`},
		{db + ";max_buffered_bytes=10TB", dsn.ErrInvalidValue, "max_buffered_bytes",
			`dsn: invalid value "10TB" for max_buffered_bytes: want a byte count of at least 0, optionally with a KiB, MiB or GiB suffix`},
		{"localhost:99999/" + db, dsn.ErrInvalidValue, "endpoint",
			`dsn: invalid value "localhost:99999" for endpoint: invalid port "99999" in "localhost:99999": want a number from 1 to 65535`},
		{db + ";endpoint=h:0", dsn.ErrInvalidValue, "endpoint",
			`dsn: invalid value "h:0" for endpoint: invalid port "0" in "h:0": want a number from 1 to 65535`},
		{db + ";endpoint=h:", dsn.ErrInvalidValue, "endpoint",
			`dsn: invalid value "h:" for endpoint: invalid port "" in "h:": want a number from 1 to 65535`},
		{db + ";endpoint=[::1]:+80", dsn.ErrInvalidValue, "endpoint",
			`dsn: invalid value "[::1]:+80" for endpoint: invalid port "+80" in "[::1]:+80": want a number from 1 to 65535`},
		{db + ";endpoint=[::1", dsn.ErrInvalidValue, "endpoint",
			`dsn: invalid value "[::1" for endpoint: unclosed '[' in "[::1": want [IPv6]:PORT`},
		{db + ";connect_timeout=soon", dsn.ErrInvalidValue, "connect_timeout",
			`dsn: invalid value "soon" for connect_timeout: want a non-negative duration such as 10s, 100ms, 5us or 1ns (a bare integer means milliseconds)`},
		{db + ";statement_timeout=-1s", dsn.ErrInvalidValue, "statement_timeout",
			`dsn: invalid value "-1s" for statement_timeout: want a non-negative duration such as 10s, 100ms, 5us or 1ns (a bare integer means milliseconds)`},
		{db + ";max_commit_delay=-1ms", dsn.ErrInvalidValue, "max_commit_delay",
			`dsn: invalid value "-1ms" for max_commit_delay: want a non-negative duration such as 10ms, 5us or 1s (a bare integer means milliseconds)`},
		{db + ";isolation_level=read committed", dsn.ErrInvalidValue, "isolation_level",
			`dsn: invalid value "read committed" for isolation_level: want DEFAULT, SERIALIZABLE, REPEATABLE_READ or SNAPSHOT`},
		{db + ";read_lock_mode=lazy", dsn.ErrInvalidValue, "read_lock_mode",
			`dsn: invalid value "lazy" for read_lock_mode: want PESSIMISTIC, OPTIMISTIC or UNSPECIFIED`},
		{db + ";begin_transaction_option=later", dsn.ErrInvalidValue, "begin_transaction_option",
			`dsn: invalid value "later" for begin_transaction_option: want INLINE (or DEFAULT) or EXPLICIT`},
		{db + ";autocommit_dml_mode=pdml", dsn.ErrInvalidValue, "autocommit_dml_mode",
			`dsn: invalid value "pdml" for autocommit_dml_mode: want TRANSACTIONAL or PARTITIONED_NON_ATOMIC`},
		{db + ";rpc_priority=urgent", dsn.ErrInvalidValue, "rpc_priority",
			`dsn: invalid value "urgent" for rpc_priority: want HIGH, MEDIUM, LOW or UNSPECIFIED`},
		{db + ";commitPriority=1", dsn.ErrInvalidValue, "commit_priority",
			`dsn: invalid value "1" for commit_priority: want HIGH, MEDIUM, LOW or UNSPECIFIED`},
		{db + ";commit_timestamp=2024-01-01T00:00:00Z", dsn.ErrInvalidValue, "commit_timestamp",
			`dsn: invalid value "2024-01-01T00:00:00Z" for commit_timestamp: read-only property; it can be shown but not set`},
		{db + ";read_only_staleness=", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "" for read_only_staleness: want STRONG, EXACT_STALENESS <duration>, MAX_STALENESS <duration>, READ_TIMESTAMP <RFC 3339 timestamp> or MIN_READ_TIMESTAMP <RFC 3339 timestamp>`},
		{db + ";read_only_staleness=STALE 10s", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "STALE 10s" for read_only_staleness: want STRONG, EXACT_STALENESS <duration>, MAX_STALENESS <duration>, READ_TIMESTAMP <RFC 3339 timestamp> or MIN_READ_TIMESTAMP <RFC 3339 timestamp>`},
		{db + ";read_only_staleness=STRONG 10s", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "STRONG 10s" for read_only_staleness: STRONG takes no argument`},
		{db + ";read_only_staleness=EXACT_STALENESS", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "EXACT_STALENESS" for read_only_staleness: EXACT_STALENESS takes one duration, e.g. EXACT_STALENESS 10s`},
		{db + ";read_only_staleness=MAX_STALENESS 10", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "MAX_STALENESS 10" for read_only_staleness: bad duration "10": want an integer and one unit, s, ms, us or ns, such as 10s or 100ms`},
		{db + ";read_only_staleness=EXACT_STALENESS -1s", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "EXACT_STALENESS -1s" for read_only_staleness: bad duration "-1s": want an integer and one unit, s, ms, us or ns, such as 10s or 100ms`},
		{db + ";read_only_staleness=READ_TIMESTAMP 2024-01-02", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "READ_TIMESTAMP 2024-01-02" for read_only_staleness: bad timestamp "2024-01-02": want RFC 3339, e.g. 2024-01-02T03:04:05.123Z`},
		{db + ";read_only_staleness=MIN_READ_TIMESTAMP", dsn.ErrInvalidValue, "read_only_staleness",
			`dsn: invalid value "MIN_READ_TIMESTAMP" for read_only_staleness: MIN_READ_TIMESTAMP takes one RFC 3339 timestamp, e.g. MIN_READ_TIMESTAMP 2024-01-02T03:04:05Z`},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			c, err := dsn.Parse(tt.dsn)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.dsn, c)
			}
			var e *dsn.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *dsn.Error: %v", err, err)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.kind)
			}
			if e.Key != tt.key {
				t.Errorf("Key = %q, want %q", e.Key, tt.key)
			}
			if err.Error() != tt.msg {
				t.Errorf("error text\n got %s\nwant %s", err.Error(), tt.msg)
			}
		})
	}
}

func TestErrorValueTruncated(t *testing.T) {
	long := strings.Repeat("x", 500)
	_, err := dsn.Parse(db + ";use_plain_text=" + long)
	var e *dsn.Error
	if !errors.As(err, &e) || e.Value != long {
		t.Fatalf("want *Error with the full value, got %v", err)
	}
	if len(err.Error()) > 200 || !strings.Contains(err.Error(), `..."`) && !strings.Contains(err.Error(), `"...`) {
		t.Fatalf("message not truncated: %s", err)
	}
}

func TestStringCanonical(t *testing.T) {
	c := dsn.NewConfig()
	c.Project, c.Instance, c.Database = "p", "i", "d"
	if got := c.FormatDSN(); got != db {
		t.Fatalf("defaults: FormatDSN() = %q, want %q", got, db)
	}
	c.Endpoint = "localhost:9010"
	c.UsePlainText = true
	c.RawDecode = true
	c.NumChannels = 8
	c.StatementTimeout = 1500 * time.Millisecond
	c.ReadOnlyStaleness = dsn.ExactStaleness(90 * time.Second)
	c.IsolationLevel = sql.LevelSerializable
	want := "localhost:9010/projects/p/instances/i/databases/d;use_plain_text=true;num_channels=8;" +
		"isolation_level=SERIALIZABLE;read_only_staleness=EXACT_STALENESS 90s;statement_timeout=1500ms;raw_decode=true"
	if got := c.FormatDSN(); got != want {
		t.Fatalf("FormatDSN()\n got %s\nwant %s", got, want)
	}

	// An endpoint that cannot be a host prefix is written as endpoint=.
	c = dsn.NewConfig()
	c.Project, c.Instance = "p", "i"
	c.Endpoint = "dns:///spanner.example:443"
	if got, want := c.FormatDSN(), "projects/p/instances/i;endpoint=dns:///spanner.example:443"; got != want {
		t.Fatalf("FormatDSN() = %q, want %q", got, want)
	}
	c.Endpoint = "projects"
	if got, want := c.FormatDSN(), "projects/p/instances/i;endpoint=projects"; got != want {
		t.Fatalf("FormatDSN() = %q, want %q", got, want)
	}
	back, err := dsn.Parse(c.FormatDSN())
	if err != nil || !back.Equal(c) {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

// TestFixedPoint: parse, format, parse gives the same Config and the same
// text again.
func TestFixedPoint(t *testing.T) {
	for _, s := range fuzzSeeds {
		c1, err := dsn.Parse(s)
		if err != nil {
			continue
		}
		s1 := c1.FormatDSN()
		c2, err := dsn.Parse(s1)
		if err != nil {
			t.Fatalf("Parse(%q) (from %q): %v", s1, s, err)
		}
		if *c1 != *c2 {
			t.Fatalf("%q: Parse(FormatDSN()) differs\n got %+v\nwant %+v", s, *c2, *c1)
		}
		if s2 := c2.FormatDSN(); s2 != s1 {
			t.Fatalf("%q: FormatDSN not a fixed point: %q then %q", s, s1, s2)
		}
	}
}

func TestSetGet(t *testing.T) {
	c := dsn.NewConfig()
	if err := c.Set("readOnlyStaleness", "max_staleness 15s"); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get("READ_ONLY_STALENESS"); err != nil || v != "MAX_STALENESS 15s" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if err := c.Set("rpc_priority", "nope"); err == nil || !errors.Is(err, dsn.ErrInvalidValue) {
		t.Fatalf("Set bad value: %v", err)
	}
	if c.RPCPriority != dsn.PriorityUnspecified {
		t.Fatalf("failed Set changed the value: %q", c.RPCPriority)
	}
	if err := c.Set("rpcpriorty", "LOW"); err == nil || err.Error() != `dsn: unknown property "rpcpriorty" (did you mean "rpc_priority"?)` {
		t.Fatalf("Set unknown key: %v", err)
	}
	if _, err := c.Get("commit_response"); !errors.Is(err, dsn.ErrInvalidValue) {
		t.Fatalf("Get read-only: %v", err)
	}
	if _, err := c.Get("nope"); !errors.Is(err, dsn.ErrUnknownProperty) {
		t.Fatalf("Get unknown: %v", err)
	}
	if v, _ := c.Get("max_buffered_bytes"); v != "134217728" {
		t.Fatalf("max_buffered_bytes default = %q", v)
	}
	if got := len(dsn.Properties()); got < 40 {
		t.Fatalf("Properties() has %d entries", got)
	}
}

func TestValidate(t *testing.T) {
	base := func() *dsn.Config {
		c := dsn.NewConfig()
		c.Project, c.Instance, c.Database = "p", "i", "d"
		return c
	}
	if err := base().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	tests := []struct {
		name string
		mod  func(c *dsn.Config)
		msg  string
	}{
		{"zero config", func(c *dsn.Config) { *c = dsn.Config{Project: "p", Instance: "i"} },
			`dsn: invalid value "0" for num_channels: value is out of range or has no text form`},
		{"channels", func(c *dsn.Config) { c.NumChannels = 1000 },
			`dsn: invalid value "1000" for num_channels: want an integer from 1 to 256 (0 means the default, 4)`},
		{"semicolon", func(c *dsn.Config) { c.DatabaseRole = "a;b" },
			`dsn: invalid value "a;b" for database_role: must not contain ';' (values are not quoted)`},
		{"endpoint semicolon", func(c *dsn.Config) { c.Endpoint = "h;1" },
			`dsn: invalid value "h;1" for endpoint: must not contain ';' (values are not quoted)`},
		{"isolation", func(c *dsn.Config) { c.IsolationLevel = sql.LevelReadCommitted },
			`dsn: invalid value "2" for isolation_level: want DEFAULT, SERIALIZABLE, REPEATABLE_READ or SNAPSHOT`},
		{"enum", func(c *dsn.Config) { c.RPCPriority = "" },
			`dsn: invalid value "" for rpc_priority: want HIGH, MEDIUM, LOW or UNSPECIFIED`},
		{"strong with duration", func(c *dsn.Config) { c.ReadOnlyStaleness.Duration = time.Second },
			`dsn: invalid value "STRONG" for read_only_staleness: value is out of range or has no text form`},
		{"negative staleness", func(c *dsn.Config) { c.ReadOnlyStaleness = dsn.ExactStaleness(-time.Second) },
			`dsn: invalid value "EXACT_STALENESS -1s" for read_only_staleness: bad duration "-1s": want an integer and one unit, s, ms, us or ns, such as 10s or 100ms`},
		{"project", func(c *dsn.Config) { c.Project = "a/b" },
			`dsn: malformed DSN: invalid project id "a/b": want lowercase letters, digits, '-', '.' and ':'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.mod(c)
			err := c.Validate()
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("Validate()\n got %v\nwant %s", err, tt.msg)
			}
		})
	}
	// A read timestamp in another zone is valid and equal to its UTC form.
	c := base()
	loc := time.FixedZone("x", 3600)
	c.ReadOnlyStaleness = dsn.Staleness{Kind: dsn.StalenessReadTimestamp, Timestamp: time.Date(2024, 5, 6, 7, 8, 9, 1, loc)}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	back, err := dsn.Parse(c.FormatDSN())
	if err != nil || !back.Equal(c) {
		t.Fatalf("round trip: %v", err)
	}
}

func TestDatabasePathAndClone(t *testing.T) {
	c, err := dsn.Parse("h:1/" + db)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.DatabasePath(); got != db {
		t.Fatalf("DatabasePath() = %q", got)
	}
	if got := c.InstancePath(); got != "projects/p/instances/i" {
		t.Fatalf("InstancePath() = %q", got)
	}
	cp := c.Clone()
	cp.Database = "other"
	if c.Database != "d" || cp.Equal(c) {
		t.Fatal("Clone shares state")
	}
	c.Database = ""
	if got := c.DatabasePath(); got != "" {
		t.Fatalf("DatabasePath() without database = %q", got)
	}
}

func TestStaleness(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	tests := []struct {
		s    dsn.Staleness
		text string
		ro   *spannerpb.TransactionOptions_ReadOnly
	}{
		{dsn.StrongRead(), "STRONG",
			&spannerpb.TransactionOptions_ReadOnly{TimestampBound: &spannerpb.TransactionOptions_ReadOnly_Strong{Strong: true}}},
		{dsn.ExactStaleness(10 * time.Second), "EXACT_STALENESS 10s",
			&spannerpb.TransactionOptions_ReadOnly{TimestampBound: &spannerpb.TransactionOptions_ReadOnly_ExactStaleness{ExactStaleness: durationpb.New(10 * time.Second)}}},
		{dsn.MaxStaleness(1500 * time.Microsecond), "MAX_STALENESS 1500us",
			&spannerpb.TransactionOptions_ReadOnly{TimestampBound: &spannerpb.TransactionOptions_ReadOnly_MaxStaleness{MaxStaleness: durationpb.New(1500 * time.Microsecond)}}},
		{dsn.ExactStaleness(1), "EXACT_STALENESS 1ns",
			&spannerpb.TransactionOptions_ReadOnly{TimestampBound: &spannerpb.TransactionOptions_ReadOnly_ExactStaleness{ExactStaleness: durationpb.New(1)}}},
		{dsn.ReadTimestamp(ts), "READ_TIMESTAMP 2024-01-02T03:04:05.000000006Z",
			&spannerpb.TransactionOptions_ReadOnly{TimestampBound: &spannerpb.TransactionOptions_ReadOnly_ReadTimestamp{ReadTimestamp: timestamppb.New(ts)}}},
		{dsn.MinReadTimestamp(ts), "MIN_READ_TIMESTAMP 2024-01-02T03:04:05.000000006Z",
			&spannerpb.TransactionOptions_ReadOnly{TimestampBound: &spannerpb.TransactionOptions_ReadOnly_MinReadTimestamp{MinReadTimestamp: timestamppb.New(ts)}}},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.text {
			t.Errorf("String() = %q, want %q", got, tt.text)
		}
		back, err := dsn.ParseStaleness(tt.text)
		if err != nil || back != tt.s {
			t.Errorf("ParseStaleness(%q) = %+v, %v; want %+v", tt.text, back, err, tt.s)
		}
		if got := tt.s.ReadOnly(); !proto.Equal(got, tt.ro) {
			t.Errorf("%s: ReadOnly() = %v, want %v", tt.text, got, tt.ro)
		}
	}
	if !dsn.MaxStaleness(1).SingleUseOnly() || !dsn.MinReadTimestamp(ts).SingleUseOnly() || dsn.ExactStaleness(1).SingleUseOnly() {
		t.Error("SingleUseOnly wrong")
	}
	// One integer and one of s, ms, us, ns, as go-sql-spanner reads it:
	// minutes, fractions, several units and a bare number are refused.
	s, err := dsn.ParseStaleness("exact_staleness 90500ms")
	if err != nil || s.Duration != 90500*time.Millisecond || s.String() != "EXACT_STALENESS 90500ms" {
		t.Fatalf("got %v %v", s, err)
	}
	for _, bad := range []string{"exact_staleness 1m", "Max_Staleness 1m", "exact_staleness 1m30.5s", "exact_staleness 1.5s",
		"exact_staleness 1", "max_staleness 1", "exact_staleness 10MS", "exact_staleness 12345678901234567890ns"} {
		if s, err := dsn.ParseStaleness(bad); err == nil {
			t.Errorf("ParseStaleness(%q) = %v, want an error", bad, s)
		}
	}
}

func TestEnumProto(t *testing.T) {
	if dsn.PriorityHigh.Proto() != spannerpb.RequestOptions_PRIORITY_HIGH ||
		dsn.PriorityMedium.Proto() != spannerpb.RequestOptions_PRIORITY_MEDIUM ||
		dsn.PriorityLow.Proto() != spannerpb.RequestOptions_PRIORITY_LOW ||
		dsn.PriorityUnspecified.Proto() != spannerpb.RequestOptions_PRIORITY_UNSPECIFIED {
		t.Error("Priority.Proto")
	}
	if dsn.ReadLockModeOptimistic.Proto() != spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC ||
		dsn.ReadLockModePessimistic.Proto() != spannerpb.TransactionOptions_ReadWrite_PESSIMISTIC ||
		dsn.ReadLockModeUnspecified.Proto() != spannerpb.TransactionOptions_ReadWrite_READ_LOCK_MODE_UNSPECIFIED {
		t.Error("ReadLockMode.Proto")
	}
	for l, want := range map[sql.IsolationLevel]string{sql.LevelDefault: "DEFAULT", sql.LevelSerializable: "SERIALIZABLE",
		sql.LevelRepeatableRead: "REPEATABLE_READ", sql.LevelSnapshot: "SNAPSHOT", sql.LevelReadCommitted: ""} {
		if got := dsn.IsolationLevelName(l); got != want {
			t.Errorf("IsolationLevelName(%v) = %q, want %q", l, got, want)
		}
	}
}

func TestIsStartupProperty(t *testing.T) {
	for key, want := range map[string]bool{
		"usePlainText": true, "num_channels": true, "CONNECT_TIMEOUT": true, "endpoint": true,
		"read_only_staleness": false, "rpcPriority": false, "raw_decode": false, "nope": false,
	} {
		if got := dsn.IsStartupProperty(key); got != want {
			t.Errorf("IsStartupProperty(%q) = %v, want %v", key, got, want)
		}
	}
}
