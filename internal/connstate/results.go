package connstate

import (
	"encoding/json"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// results is what the connection's last transaction and read left for
// SHOW VARIABLE commit_timestamp, commit_response and read_timestamp. The
// zero value means a statement or transaction began and nothing has
// committed since; untouched marks a connection (or pooled session) that
// has run nothing yet.
type results struct {
	readTimestamp   time.Time
	commitTimestamp time.Time
	commitResponse  *spannerpb.CommitResponse
	untouched       bool
}

// NoteStart records that a statement or transaction began: nothing has
// committed since (commit_response shows "null", the timestamps NULL).
func (s *Store) NoteStart() { s.last = results{} }

// NoteRead records a finished read at ts: only read_timestamp shows.
func (s *Store) NoteRead(ts time.Time) { s.last = results{readTimestamp: ts} }

// NoteReadTimestamp records the read timestamp of the open read-only
// transaction, keeping the rest.
func (s *Store) NoteReadTimestamp(ts time.Time) { s.last.readTimestamp = ts }

// NoteCommit records a commit: its timestamp and response.
func (s *Store) NoteCommit(resp *spannerpb.CommitResponse) {
	s.last = results{commitTimestamp: resp.GetCommitTimestamp().AsTime(), commitResponse: resp}
}

// LastCommit returns the last commit's timestamp and response; resp is nil
// when nothing has committed since the last statement or transaction began.
func (s *Store) LastCommit() (ts time.Time, resp *spannerpb.CommitResponse) {
	return s.last.commitTimestamp, s.last.commitResponse
}

// LastReadTimestamp returns the read timestamp of the last read-only
// transaction or query (zero: none).
func (s *Store) LastReadTimestamp() time.Time { return s.last.readTimestamp }

// show answers SHOW VARIABLE of a read-only property.
func (l *results) show(name string) (any, error) {
	switch name {
	case "commit_timestamp":
		return timeOrNull(l.commitTimestamp), nil
	case "read_timestamp":
		return timeOrNull(l.readTimestamp), nil
	case "commit_response":
		return l.commitResponseText()
	}
	return nil, status.Errorf(codes.Internal, "spannerfast: read-only property %s has no value", name)
}

// commitResponseText is go-sql-spanner's text of commit_response: "" on a
// connection that has run nothing, "null" once a statement or transaction
// began without a commit to report since (go-sql-spanner clears the value
// then, and a transaction that ran nothing commits nothing: it shows
// "null" too), else the JSON of the official client's CommitResponse (its
// commit timestamp and the commit statistics, if any).
func (l *results) commitResponseText() (any, error) {
	if l.commitResponse == nil {
		if l.untouched {
			return "", nil
		}
		return "null", nil
	}
	b, err := json.Marshal(struct {
		CommitTs    time.Time
		CommitStats *spannerpb.CommitResponse_CommitStats
	}{l.commitTimestamp, l.commitResponse.GetCommitStats()})
	if err != nil {
		return nil, status.Errorf(codes.Internal, "spannerfast: commit_response: %v", err)
	}
	return string(b), nil
}

// timeOrNull is a TIMESTAMP value: NULL (nil) when nothing has set it.
func timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
