package dsn_test

import (
	"errors"
	"testing"

	"github.com/spannerfast/spannerfast/dsn"
)

// TestExperimentalHostShortPath: with is_experimental_host=true the DSN may
// leave out the project and the instance, as go-sql-spanner allows
// (HOST/databases/D, HOST/instances/I/databases/D; both default to
// "default"); FormatDSN writes that form back and Split reports the
// defaults as go-sql-spanner's ExtractConnectorConfig does. Without the
// property (or with it false, last one winning) the path is malformed
// with the same error as before.
func TestExperimentalHostShortPath(t *testing.T) {
	for _, tc := range []struct {
		in, instance, database, formatted string
	}{
		{"h:1/databases/d;is_experimental_host=true", "default", "d", "h:1/databases/d;is_experimental_host=true"},
		{"h:1/databases/d?isExperimentalHost=TRUE;num_channels=2", "default", "d", "h:1/databases/d;is_experimental_host=true;num_channels=2"},
		{"h:1/instances/i-1/databases/d_2;is_experimental_host=true", "i-1", "d_2", "h:1/instances/i-1/databases/d_2;is_experimental_host=true"},
		{"h:1/projects/default/instances/default/databases/d;is_experimental_host=true", "default", "d", "h:1/databases/d;is_experimental_host=true"},
		{"h:1/databases/d;is_experimental_host=false;is_experimental_host=true", "default", "d", "h:1/databases/d;is_experimental_host=true"},
	} {
		c, err := dsn.Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if c.Project != "default" || c.Instance != tc.instance || c.Database != tc.database || c.Endpoint != "h:1" || !c.IsExperimentalHost {
			t.Errorf("Parse(%q) = project %q, instance %q, database %q, endpoint %q", tc.in, c.Project, c.Instance, c.Database, c.Endpoint)
		}
		if got := c.FormatDSN(); got != tc.formatted {
			t.Errorf("FormatDSN(Parse(%q)) = %q, want %q", tc.in, got, tc.formatted)
		}
		p, err := dsn.Split(tc.in)
		if err != nil || p.Project != "default" || p.Instance != tc.instance || p.Database != tc.database || p.Host != "h:1" {
			t.Errorf("Split(%q) = %+v, %v", tc.in, p, err)
		}
	}
	// A configured project other than default keeps the full form.
	c, err := dsn.Parse("h:1/projects/p/instances/i/databases/d;is_experimental_host=true")
	if err != nil || c.FormatDSN() != "h:1/projects/p/instances/i/databases/d;is_experimental_host=true" {
		t.Errorf("full form: %v, %q", err, c.FormatDSN())
	}

	for _, tc := range []struct{ in, msg string }{
		{"h:1/databases/d", `dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE] after the host "h:1", got "databases/d"`},
		{"h:1/databases/d;is_experimental_host=false", `dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE] after the host "h:1", got "databases/d"`},
		{"h:1/databases/d;is_experimental_host=true;is_experimental_host=false", `dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE] after the host "h:1", got "databases/d"`},
		{"h:1/instances/i/databases/d;bogus=1", `dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE] after the host "h:1", got "instances/i/databases/d"`},
		{"databases/d;is_experimental_host=true", `dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE] after the host "databases", got "d"`},
		{"h:1/databases/;is_experimental_host=true", `dsn: malformed DSN: want [instances/INSTANCE/]databases/DATABASE (or projects/PROJECT/instances/INSTANCE[/databases/DATABASE]) after an experimental host, got "databases/"`},
		{"h:1/instances/i;is_experimental_host=true", `dsn: malformed DSN: want [instances/INSTANCE/]databases/DATABASE (or projects/PROJECT/instances/INSTANCE[/databases/DATABASE]) after an experimental host, got "instances/i"`},
		{"h:1/databases/d/x;is_experimental_host=true", `dsn: malformed DSN: want [instances/INSTANCE/]databases/DATABASE (or projects/PROJECT/instances/INSTANCE[/databases/DATABASE]) after an experimental host, got "databases/d/x"`},
		{"h:1/instances/I/databases/d;is_experimental_host=true", `dsn: malformed DSN: invalid instance id "I": want lowercase letters, digits and '-'`},
	} {
		_, err := dsn.Parse(tc.in)
		if !errors.Is(err, dsn.ErrMalformed) || err.Error() != tc.msg {
			t.Errorf("Parse(%q) = %v\nwant %s", tc.in, err, tc.msg)
		}
	}
}
