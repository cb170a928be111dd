package connstate

import (
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/dsn"
)

// TestShowLastResults: SHOW VARIABLE reads what the last transaction and
// read left in the Store; before anything, the timestamps are NULL and
// commit_response is empty, as in go-sql-spanner.
func TestShowLastResults(t *testing.T) {
	s := New(dsn.NewConfig())
	for _, name := range []string{"commit_timestamp", "commitTimestamp", "read_timestamp"} {
		if v, err := s.Show(name); err != nil || v != nil {
			t.Errorf("%s before anything = %#v, %v; want NULL", name, v, err)
		}
	}
	if v, err := s.Show("commit_response"); err != nil || v != "" {
		t.Errorf("commit_response before a commit = %#v, %v; want \"\"", v, err)
	}
	// Once a statement or transaction began without a commit since,
	// go-sql-spanner shows "null".
	s.NoteStart()
	if v, err := s.Show("commit_response"); err != nil || v != "null" {
		t.Errorf("commit_response after a transaction without commit = %#v, %v; want \"null\"", v, err)
	}

	commit := time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)
	read := time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC)
	s.last = results{
		readTimestamp:   read,
		commitTimestamp: commit,
		commitResponse:  &spannerpb.CommitResponse{CommitStats: &spannerpb.CommitResponse_CommitStats{MutationCount: 10}},
	}
	if v, _ := s.Show("commit_timestamp"); v != commit {
		t.Errorf("commit_timestamp = %#v, want %v", v, commit)
	}
	if v, _ := s.Show("read_timestamp"); v != read {
		t.Errorf("read_timestamp = %#v, want %v", v, read)
	}
	want := `{"CommitTs":"2024-01-02T03:04:05.000006Z","CommitStats":{"mutation_count":10}}`
	if v, _ := s.Show("commit_response"); v != want {
		t.Errorf("commit_response = %v, want %s", v, want)
	}
	s.last.commitResponse = &spannerpb.CommitResponse{}
	want = `{"CommitTs":"2024-01-02T03:04:05.000006Z","CommitStats":null}`
	if v, _ := s.Show("commit_response"); v != want {
		t.Errorf("commit_response without stats = %v, want %s", v, want)
	}
}
