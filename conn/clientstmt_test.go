package conn

import (
	"database/sql/driver"
	"testing"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
)

// TestShowVariableRedactsSecret: SHOW VARIABLE credentials_json never
// returns the secret; it answers dsn.Redacted, as Config.String writes it.
func TestShowVariableRedactsSecret(t *testing.T) {
	cfg := dsn.NewConfig()
	if err := cfg.Set("credentials_json", `{"type":"service_account","private_key":"TOPSECRET"}`); err != nil {
		t.Fatal(err)
	}
	c := &Conn{state: connstate.New(cfg)}
	st, err := parseStatement("SHOW VARIABLE credentials_json")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.showVariable(st)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil || dest[0] != dsn.Redacted {
		t.Fatalf("SHOW VARIABLE credentials_json = %#v, %v; want %q", dest[0], err, dsn.Redacted)
	}
	c.state = connstate.New(dsn.NewConfig()) // credentials_json unset
	if v, err := c.variable("credentials_json"); err != nil || v != "" {
		t.Fatalf("unset credentials_json = %#v, %v; want \"\"", v, err)
	}
}
