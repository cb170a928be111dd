package dsn_test

import (
	"database/sql"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// pgCases are the PostgreSQL settings: their default as SHOW types it on a
// PostgreSQL-dialect database, a value SET accepts and how it shows. set ""
// marks a read-only one.
var pgCases = []struct {
	name, wantDef, set, wantSet string
}{
	{"application_name", "", "my-awesome-app", "my-awesome-app"},
	{"client_min_messages", "notice", "WARNING", "warning"},
	{"client_encoding", "UTF8", "utf-8", "UTF8"},
	{"timezone", "UTC", "Asia/Kolkata", "Asia/Kolkata"},
	{"default_transaction_isolation", "serializable", "repeatable_read", "repeatable read"},
	{"transaction_isolation", "serializable", "", ""},
	{"server_version", "14.1", "", ""},
	{"server_version_num", "140001", "", ""},
}

func pgConfig() *dsn.Config {
	c := dsn.NewConfig()
	c.DatabaseDialect = dsn.DialectPostgreSQL
	return c
}

// TestPostgreSQLSettings: on a PostgreSQL-dialect database the settings
// show, SET changes them (NULL: the default) and the read-only ones refuse
// SET with FailedPrecondition; on a GoogleSQL one they are unknown
// (InvalidArgument), and a DSN never takes them.
func TestPostgreSQLSettings(t *testing.T) {
	for _, pc := range pgCases {
		t.Run(pc.name, func(t *testing.T) {
			d, ok := dsn.Declaration(pc.name)
			if !ok || !d.PostgreSQL || (d.Scope == dsn.ScopeReadOnly) != (pc.set == "") {
				t.Fatalf("Declaration = %+v, %v", d, ok)
			}
			c := pgConfig()
			if v, err := c.Value(pc.name); err != nil || v != pc.wantDef {
				t.Errorf("default Value = %#v, %v; want %q", v, err, pc.wantDef)
			}
			if pc.set == "" {
				err := c.SetVariable(pc.name, "x")
				if !errors.Is(err, dsn.ErrReadOnly) || status.Code(err) != codes.FailedPrecondition {
					t.Errorf("SetVariable of a read-only setting = %v (%v)", err, status.Code(err))
				}
			} else {
				if err := c.SetVariable(pc.name, pc.set); err != nil {
					t.Fatal(err)
				}
				if v, _ := c.Value(pc.name); v != pc.wantSet {
					t.Errorf("Value after SET = %#v, want %q", v, pc.wantSet)
				}
				if err := c.SetVariable(pc.name, "NULL"); err != nil {
					t.Fatal(err)
				}
				if v, _ := c.Value(pc.name); v != pc.wantDef {
					t.Errorf("Value after SET NULL = %#v, want %q", v, pc.wantDef)
				}
			}
			g := dsn.NewConfig()
			g.DatabaseDialect = dsn.DialectGoogleSQL
			if _, err := g.Value(pc.name); !errors.Is(err, dsn.ErrUnknownProperty) || status.Code(err) != codes.InvalidArgument {
				t.Errorf("Value on GoogleSQL = %v, want ErrUnknownProperty", err)
			}
			if err := g.SetVariable(pc.name, "x"); !errors.Is(err, dsn.ErrUnknownProperty) {
				t.Errorf("SetVariable on GoogleSQL = %v, want ErrUnknownProperty", err)
			}
			if _, err := dsn.Parse(db + ";" + pc.name + "=x"); !errors.Is(err, dsn.ErrUnknownProperty) {
				t.Errorf("in a DSN: %v, want ErrUnknownProperty", err)
			}
			if err := dsn.NewConfig().Set(pc.name, "x"); !errors.Is(err, dsn.ErrUnknownProperty) {
				t.Errorf("Set: %v, want ErrUnknownProperty", err)
			}
		})
	}
}

// TestPostgreSQLSettingsRefuse: values a setting does not take are refused
// with InvalidArgument, as go-sql-spanner refuses read committed.
func TestPostgreSQLSettingsRefuse(t *testing.T) {
	for _, tt := range []struct{ name, value string }{
		{"default_transaction_isolation", "read committed"},
		{"default_transaction_isolation", "snapshot"},
		{"client_encoding", "LATIN1"},
		{"client_min_messages", "loud"},
	} {
		c := pgConfig()
		err := c.SetVariable(tt.name, tt.value)
		if !errors.Is(err, dsn.ErrInvalidValue) || status.Code(err) != codes.InvalidArgument {
			t.Errorf("SET %s = %q: %v (%v), want ErrInvalidValue", tt.name, tt.value, err, status.Code(err))
		}
	}
}

// TestTxnIsolation: isolation_level wins; when it is DEFAULT, a
// PostgreSQL-dialect database's transactions get default_transaction_isolation,
// and isolation_level and transaction_isolation show that level in
// PostgreSQL's spelling.
func TestTxnIsolation(t *testing.T) {
	c := pgConfig()
	if got := c.TxnIsolation(); got != sql.LevelDefault {
		t.Errorf("TxnIsolation() = %v, want Default (Spanner's serializable)", got)
	}
	if err := c.SetVariable("default_transaction_isolation", "repeatable read"); err != nil {
		t.Fatal(err)
	}
	if got := c.TxnIsolation(); got != sql.LevelRepeatableRead {
		t.Errorf("TxnIsolation() = %v, want RepeatableRead", got)
	}
	for _, name := range []string{"isolation_level", "transaction_isolation"} {
		if v, _ := c.Value(name); v != "repeatable read" {
			t.Errorf("%s shows %#v, want repeatable read", name, v)
		}
	}
	if err := c.SetVariable("isolation_level", "serializable"); err != nil {
		t.Fatal(err)
	}
	if got := c.TxnIsolation(); got != sql.LevelSerializable {
		t.Errorf("with isolation_level: TxnIsolation() = %v, want Serializable", got)
	}
	// GoogleSQL: isolation_level as go-sql-spanner shows it there, and
	// default_transaction_isolation does not exist.
	g := dsn.NewConfig()
	if v, _ := g.Value("isolation_level"); v != "Default" {
		t.Errorf("GoogleSQL isolation_level shows %#v, want Default", v)
	}
	g.DefaultTransactionIsolation = sql.LevelRepeatableRead
	if got := g.TxnIsolation(); got != sql.LevelDefault {
		t.Errorf("GoogleSQL TxnIsolation() = %v, want Default", got)
	}
}
