package dsn_test

import (
	"errors"
	"testing"

	"github.com/spannerfast/spannerfast/dsn"
)

var fuzzSeeds = []string{
	"",
	"projects/p/instances/i",
	"projects/p/instances/i/databases/d",
	"localhost:9010/projects/p/instances/i/databases/d;usePlainText=true",
	"projects/p/instances/i/databases/d?autoConfigEmulator=true;endpoint=h:1",
	"projects/example.com:p/instances/i-1/databases/d_2;num_channels=0;statement_cache_size=0",
	"projects/p/instances/i/databases/d;read_only_staleness=EXACT_STALENESS 10s",
	"projects/p/instances/i/databases/d;read_only_staleness=read_timestamp 2024-01-02T05:04:05.5+02:00",
	"projects/p/instances/i/databases/d;read_only_staleness=MIN_READ_TIMESTAMP 0001-01-01T00:00:00Z",
	"projects/p/instances/i/databases/d;read_only_staleness=MAX_STALENESS 1h2m3.000000004s",
	"projects/p/instances/i/databases/d;isolation_level=repeatable read;rpc_priority=PRIORITY_HIGH",
	"projects/p/instances/i/databases/d;max_commit_delay=NULL;statement_timeout=100;connect_timeout=5us",
	"projects/p/instances/i/databases/d;max_commit_delay=0s;read_only_staleness=exact_staleness 90500ms",
	"projects/p/instances/i/databases/d;max_commit_delay=;read_only_staleness=Max_Staleness 1m",
	"projects/p/instances/i/databases/d;max_commit_delay=2s;read_only_staleness=MAX_STALENESS 0012345678901234567ns",
	"projects/p/instances/i/databases/d;max_buffered_bytes=1GiB;prefetch_messages=1024;raw_decode=1",
	"projects/p/instances/i/databases/d;credentials_json={\"a\":\"b=c\"};database_role= x ",
	"projects/p/instances/i/databases/d;endpoint=a/b?c",
	"projects/p/instances/i/databases/d;endpoint=projects",
	"localhost:99999/projects/p/instances/i/databases/d",
	"[::1]:9010/projects/p/instances/i/databases/d;endpoint=[::1]:65535",
	"projects/p/instances/i/databases/d;endpoint=::1",
	"projects/p/instances/i/databases/d;endpoint=h:0x50",
	" /projects/p/instances/i",
	"projects/p/instances/i/databases/d;;;",
	"projects/p/instances/i/databases/d;commit_timestamp=x",
	"projects/p/instances/i/databases/d;x=y",
	"projects/p/instances/i/databases/d;begin_transaction_option=inlined_begin_transaction;autocommit_dml_mode=Partitioned-Non-Atomic",
	"projects/p/instances/i/databases/d;ddl_execution_mode=async_wait;ddl_async_wait_timeout=NULL;max_partitions=3;auto_batch_dml_update_count=-2",
	"projects/p/instances/i/databases/d;connection_state_type=transactional;database_dialect=postgresql;read_timestamp=x",
	`projects/p/instances/i/databases/d;directed_read={"excludeReplicas":{"replicaSelections":[{"type":"READ_ONLY"}]}}`,
	// An experimental host's path without project (experimentalpath.go).
	"h:1/databases/d;is_experimental_host=true",
	"h:1/instances/i/databases/d?isExperimentalHost=1;ca_cert_file=x",
	"h:1/projects/default/instances/default/databases/d;is_experimental_host=true;endpoint=e:2",
	"h:1/databases/d;is_experimental_host=true;is_experimental_host=false",
	"h:1/instances/databases/d;is_experimental_host=true",
	"h:1/projects/default/instances/i/databases/d;is_experimental_host=true;endpoint=a/b",
	// PostgreSQL connection URLs (url.go).
	"postgresql://localhost:5432/projects/p/instances/i/databases/d",
	"postgres://user:password@[::1]:9010/projects/p/instances/i?sslmode=disable&numChannels=2",
	"POSTGRESQL:///projects/p/instances/i/databases/d?use_plain_text=false&sslmode=disable&endpoint=h:1",
	"postgresql://h/projects/p/instances/i/databases/d?database_role=a+b%2F%3D&credentials_json=%7B%7D&&",
	"postgresql://h/projects/p/instances/i/databases/d?read_only_staleness=exact_staleness+10s&num_channels=1&num_channels=2",
	"postgresql://h/projects/p/instances/i/databases/d;x=y?a=b#c",
	"postgresql://h/projects/p/instances/i/databases/d?sslmode=verify-full&sslmode=disable",
}

// FuzzParse: Parse never panics; whatever it accepts formats to a DSN that
// parses back to an equal Config, and formatting is a fixed point.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := dsn.Parse(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		if err := c.Validate(); err != nil && !tlsCombination(err) {
			// The TLS properties' combinations are checked when the
			// connector is made (Validate), not by Parse.
			t.Fatalf("Parse(%q) gave a Config that does not validate: %v", s, err)
		}
		s1 := c.FormatDSN()
		c2, err := dsn.Parse(s1)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but Parse(FormatDSN()=%q): %v", s, s1, err)
		}
		if *c2 != *c {
			t.Fatalf("Parse(%q) != Parse(FormatDSN()=%q)\n got %+v\nwant %+v", s, s1, *c2, *c)
		}
		if s2 := c2.FormatDSN(); s2 != s1 {
			t.Fatalf("FormatDSN not a fixed point: %q then %q", s1, s2)
		}
	})
}

// tlsCombination reports whether err refuses a combination of the TLS
// properties (tlsprops.go).
func tlsCombination(err error) bool {
	var e *dsn.Error
	if !errors.As(err, &e) || e.Kind != dsn.ErrInvalidValue {
		return false
	}
	switch e.Key {
	case "is_experimental_host", "ca_cert_file", "client_cert_file", "client_cert_key":
		return true
	}
	return false
}
