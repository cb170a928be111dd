package conn

import (
	"database/sql/driver"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/dsn"
)

// TestShowLastResults: SHOW VARIABLE reads what the last transaction and
// read left in Conn.last; before anything, the timestamps are NULL and
// commit_response is empty, as in go-sql-spanner.
func TestShowLastResults(t *testing.T) {
	c := &Conn{cfg: *dsn.NewConfig(), last: lastResults{untouched: true}}
	for _, name := range []string{"commit_timestamp", "commitTimestamp", "read_timestamp"} {
		if v, err := c.variable(name); err != nil || v != nil {
			t.Errorf("%s before anything = %#v, %v; want NULL", name, v, err)
		}
	}
	if v, err := c.variable("commit_response"); err != nil || v != "" {
		t.Errorf("commit_response before a commit = %#v, %v; want \"\"", v, err)
	}
	// Once a statement or transaction began without a commit since,
	// go-sql-spanner shows "null".
	c.last = lastResults{}
	if v, err := c.variable("commit_response"); err != nil || v != "null" {
		t.Errorf("commit_response after a transaction without commit = %#v, %v; want \"null\"", v, err)
	}

	commit := time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)
	read := time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC)
	c.last = lastResults{
		readTimestamp:   read,
		commitTimestamp: commit,
		commitResponse:  &spannerpb.CommitResponse{CommitStats: &spannerpb.CommitResponse_CommitStats{MutationCount: 10}},
	}
	if v, _ := c.variable("commit_timestamp"); v != commit {
		t.Errorf("commit_timestamp = %#v, want %v", v, commit)
	}
	if v, _ := c.variable("read_timestamp"); v != read {
		t.Errorf("read_timestamp = %#v, want %v", v, read)
	}
	want := `{"CommitTs":"2024-01-02T03:04:05.000006Z","CommitStats":{"mutation_count":10}}`
	if v, _ := c.variable("commit_response"); v != want {
		t.Errorf("commit_response = %v, want %s", v, want)
	}
	c.last.commitResponse = &spannerpb.CommitResponse{}
	want = `{"CommitTs":"2024-01-02T03:04:05.000006Z","CommitStats":null}`
	if v, _ := c.variable("commit_response"); v != want {
		t.Errorf("commit_response without stats = %v, want %s", v, want)
	}
}

// TestShowVariableRedactsSecret: SHOW VARIABLE credentials_json never
// returns the secret; it answers dsn.Redacted, as Config.String writes it.
func TestShowVariableRedactsSecret(t *testing.T) {
	cfg := dsn.NewConfig()
	if err := cfg.Set("credentials_json", `{"type":"service_account","private_key":"TOPSECRET"}`); err != nil {
		t.Fatal(err)
	}
	c := &Conn{cfg: *cfg}
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
	c.cfg.CredentialsJSON = ""
	if v, err := c.variable("credentials_json"); err != nil || v != "" {
		t.Fatalf("unset credentials_json = %#v, %v; want \"\"", v, err)
	}
}
