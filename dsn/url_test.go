package dsn_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/dsn"
)

// TestParsePostgreSQLURL: the postgresql:// forms go-sql-spanner accepts
// (its TestExtractDsn cases, driver_test.go at HEAD) mean here what they
// mean there: the URL's host is the endpoint, its path the database, its
// query the properties, sslmode=disable is use_plain_text unless that is
// given, user and password are ignored, and the dialect is not implied.
// Split reports the parts as go-sql-spanner's ExtractConnectorConfig does.
func TestParsePostgreSQLURL(t *testing.T) {
	tests := []struct {
		in     string
		host   string
		params map[string]string
		want   func(c *dsn.Config)
	}{
		{"postgresql://localhost:5432/" + db, "localhost:5432", map[string]string{},
			func(c *dsn.Config) { c.Endpoint = "localhost:5432" }},
		{"postgresql://localhost:9010/" + db + "?usePlainText=true", "localhost:9010", map[string]string{"useplaintext": "true"},
			func(c *dsn.Config) { c.Endpoint, c.UsePlainText = "localhost:9010", true }},
		{"postgresql://localhost:5432/" + db + "?sslmode=disable", "localhost:5432", map[string]string{"useplaintext": "true"},
			func(c *dsn.Config) { c.Endpoint, c.UsePlainText = "localhost:5432", true }},
		{"postgres://localhost:5432/" + db, "localhost:5432", map[string]string{},
			func(c *dsn.Config) { c.Endpoint = "localhost:5432" }},
		{"PostgreSQL://localhost:5432/" + db, "localhost:5432", map[string]string{},
			func(c *dsn.Config) { c.Endpoint = "localhost:5432" }},
		{"postgresql://user:password@localhost:5432/" + db, "localhost:5432", map[string]string{},
			func(c *dsn.Config) { c.Endpoint = "localhost:5432" }},
		{"postgresql:///" + db, "", map[string]string{}, func(c *dsn.Config) {}},
		{"postgresql://localhost:5432/" + db + "?sslmode=disable&useplaintext=false", "localhost:5432",
			map[string]string{"useplaintext": "false"}, func(c *dsn.Config) { c.Endpoint = "localhost:5432" }},
		{"postgresql://localhost:5432/" + db + "?use_plain_text=false&sslmode=DISABLE", "localhost:5432",
			map[string]string{"use_plain_text": "false"}, func(c *dsn.Config) { c.Endpoint = "localhost:5432" }},
		{"postgresql://localhost:5432/" + db + "?sslmode=require", "localhost:5432", map[string]string{},
			func(c *dsn.Config) { c.Endpoint = "localhost:5432" }},
		{"postgresql://user:password@remote-host:5432/" + db, "remote-host:5432", map[string]string{},
			func(c *dsn.Config) { c.Endpoint = "remote-host:5432" }},
		{"postgresql://[::1]/" + db, "[::1]", map[string]string{}, func(c *dsn.Config) { c.Endpoint = "[::1]" }},
		{"postgresql://h/projects/p/instances/i", "h", map[string]string{},
			func(c *dsn.Config) { c.Endpoint, c.Database = "h", "" }},
		{"postgresql://h/" + db + "?endpoint=other:1", "h", map[string]string{"endpoint": "other:1"},
			func(c *dsn.Config) { c.Endpoint = "other:1" }},
		{"postgresql://h/" + db + "?numChannels=2&num_channels=8&Database_Role=a+b%2Fc", "h",
			map[string]string{"numchannels": "2", "num_channels": "8", "database_role": "a b/c"},
			func(c *dsn.Config) { c.Endpoint, c.NumChannels, c.DatabaseRole = "h", 2, "a b/c" }}, // the first value wins
		{"postgresql://h/" + db + "?&autoconfigemulator=true&", "h", map[string]string{"autoconfigemulator": "true"},
			func(c *dsn.Config) { c.Endpoint, c.AutoConfigEmulator = "h", true }},
		{"postgresql://h/" + db + "?dialect=postgresql", "h", map[string]string{"dialect": "postgresql"},
			func(c *dsn.Config) { c.Endpoint, c.Dialect = "h", dsn.DialectPostgreSQL }},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := dsn.Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			want := dsn.NewConfig()
			want.Project, want.Instance, want.Database = "p", "i", "d"
			tc.want(want)
			if *got != *want {
				t.Fatalf("Parse:\n got %+v\nwant %+v", *got, *want)
			}
			if got.DatabaseDialect != dsn.DialectUnspecified {
				t.Fatalf("a postgresql:// URL implied database_dialect %s; the connector reads it from the database", got.DatabaseDialect)
			}
			p, err := dsn.Split(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Host != tc.host || p.Project != "p" || p.Instance != "i" || !maps.Equal(p.Params, tc.params) {
				t.Fatalf("Split = %+v, want host %q, params %v", p, tc.host, tc.params)
			}
			// The native form of the same configuration parses back to it.
			again, err := dsn.Parse(got.FormatDSN())
			if err != nil || *again != *got {
				t.Fatalf("Parse(FormatDSN() = %q) = %+v, %v", got.FormatDSN(), again, err)
			}
		})
	}
}

// TestParsePostgreSQLURLRefused: what go-sql-spanner refuses (a path that
// names no database, "postgresql://invalid-url/mydb") and what it would
// silently drop is refused with an error that says why.
func TestParsePostgreSQLURLRefused(t *testing.T) {
	tests := []struct {
		in, key, msg string
		kind         error
	}{
		{"postgresql://invalid-url/mydb", "", `want the path /projects/`, dsn.ErrMalformed},
		{"postgresql://h", "", `want the path /projects/`, dsn.ErrMalformed},
		{"postgresql://h/other/" + db, "", `want the path /projects/`, dsn.ErrMalformed},
		{"postgresql://h/" + db + ";usePlainText=true", "", "properties in the path", dsn.ErrMalformed},
		{"postgresql://h/" + db + "?a=b;c=d", "", "separate properties with '&'", dsn.ErrMalformed},
		{"postgresql://h/" + db + "?database_role=x#y", "", "write a '#' in a value as %23", dsn.ErrMalformed},
		{"postgresql://h/" + db + "?database_role=%zz", "", "bad %-escape", dsn.ErrMalformed},
		{"postgresql://h:x/" + db, "", "not a URL", dsn.ErrMalformed},
		{"postgresql://h:99999/" + db, "endpoint", "invalid port", dsn.ErrInvalidValue},
		{"postgresql://h/projects/p/instances/i/databases/", "", "missing database id", dsn.ErrMalformed},
		{"postgresql://h/" + db + "?sslmode=off", "sslmode", "want disable, allow, prefer", dsn.ErrInvalidValue},
		{"postgresql://h/" + db + "?foo=bar", "foo", "unknown", dsn.ErrUnknownProperty},
		{"postgresql://h/" + db + "?application_name=x", "application_name", "not a DSN property", dsn.ErrUnknownProperty},
		{"postgresql://h/" + db + "?num_channels=x", "num_channels", "", dsn.ErrInvalidValue},
		{"postgresql://h/" + db + "?=x", "", "empty key", dsn.ErrMalformed},
		{"postgresql://h/" + db + "?database_role=a%3Bb", "database_role", "must not contain ';'", dsn.ErrInvalidValue},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := dsn.Parse(tc.in)
			var e *dsn.Error
			if !errors.As(err, &e) || !errors.Is(err, tc.kind) {
				t.Fatalf("Parse = %v, want a %v *dsn.Error", err, tc.kind)
			}
			if e.Key != tc.key || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Parse = %v (key %q), want key %q and %q", err, e.Key, tc.key, tc.msg)
			}
			if _, err2 := dsn.Split(tc.in); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("Split = %v, want Parse's %v", err2, err)
			}
		})
	}
}
