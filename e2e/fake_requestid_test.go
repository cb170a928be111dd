package e2e

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// requestIDPattern is the official client's x-goog-spanner-request-id:
// version 1, the process's random 64-bit id in 16 hex digits, then the
// client, channel, request and attempt numbers in decimal.
var requestIDPattern = regexp.MustCompile(`^1\.([0-9a-f]{16})\.([1-9][0-9]*)\.([1-9][0-9]*)\.([1-9][0-9]*)\.([1-9][0-9]*)$`)

// requestID is one parsed x-goog-spanner-request-id.
type requestID struct {
	raw                                string
	process                            string
	client, channel, request, attempts uint64
}

// requestIDOf parses the one request id r carries, failing the test when
// there is not exactly one or it is malformed.
func requestIDOf(t *testing.T, r fakespanner.Request) requestID {
	t.Helper()
	v := r.Header.Get("x-goog-spanner-request-id")
	if len(v) != 1 {
		t.Fatalf("%s carries %d request ids %q, want 1", r.Method, len(v), v)
	}
	m := requestIDPattern.FindStringSubmatch(v[0])
	if m == nil {
		t.Fatalf("%s: request id %q is not in the official client's format", r.Method, v[0])
	}
	n := func(s string) uint64 {
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	return requestID{raw: v[0], process: m[1], client: n(m[2]), channel: n(m[3]), request: n(m[4]), attempts: n(m[5])}
}

// addRatingUpdates registers the DML statements of these tests.
func addRatingUpdates(s *fakespanner.Server) {
	for i := 1; i <= 3; i++ {
		s.AddResult("UPDATE Singers SET Rating = "+strconv.Itoa(i)+" WHERE TRUE", fakespanner.DML(1))
	}
}

// TestRequestIDsUnique: every RPC (session creation, queries, DML,
// commit, rollback, DDL and its operation) carries one x-goog-spanner-request-id in the official
// client's format, all different, across connections and connectors: one
// process id, one client number per connector (two connectors of one
// database get two), channels 1..num_channels, first attempts.
func TestRequestIDsUnique(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(pointQuery, pointResult())
	addRatingUpdates(s)
	ctx := context.Background()
	work := func(db *sql.DB) {
		if _, err := db.ExecContext(ctx, "CREATE TABLE T (id INT64) PRIMARY KEY (id)"); err != nil {
			t.Fatal(err)
		}
		for range 2 { // two connections at once
			c1, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c1.Close()
			for range 3 {
				if _, err := c1.ExecContext(ctx, "UPDATE Singers SET Rating = 1 WHERE TRUE"); err != nil {
					t.Fatal(err)
				}
				rows, err := c1.QueryContext(ctx, pointQuery)
				if err != nil {
					t.Fatal(err)
				}
				rows.Close()
			}
			tx, err := c1.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "UPDATE Singers SET Rating = 2 WHERE TRUE"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			tx, err = c1.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "UPDATE Singers SET Rating = 3 WHERE TRUE"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
		}
	}
	seen := map[string]string{}
	var process string
	clients := map[uint64]bool{}
	for i, props := range [][]string{{"num_channels=3"}, {"num_channels=2"}} {
		s.ResetRequests()
		work(openFake(t, s, props...))
		reqs := s.Requests()
		methods := map[string]bool{}
		var client uint64
		requests := map[uint64]bool{}
		for _, r := range reqs {
			id := requestIDOf(t, r)
			methods[r.Method] = true
			if prev, dup := seen[id.raw]; dup {
				t.Errorf("%s and %s share the request id %s", prev, r.Method, id.raw)
			}
			seen[id.raw] = r.Method
			if process == "" {
				process = id.process
			}
			if id.process != process {
				t.Errorf("process ids %s and %s in one process", process, id.process)
			}
			if client == 0 {
				client = id.client
			}
			if id.client != client {
				t.Errorf("connector %d: client numbers %d and %d", i, client, id.client)
			}
			if maxCh := uint64(3 - i); id.channel > maxCh {
				t.Errorf("%s: channel %d of %d", id.raw, id.channel, maxCh)
			}
			if id.attempts != 1 {
				t.Errorf("%s: %s is attempt %d of a call that was not retried", r.Method, id.raw, id.attempts)
			}
			if requests[id.request] {
				t.Errorf("%s: request number %d used twice", id.raw, id.request)
			}
			requests[id.request] = true
		}
		if clients[client] {
			t.Errorf("two connectors share the client number %d", client)
		}
		clients[client] = true
		for _, m := range []string{"CreateSession", "ExecuteStreamingSql", "ExecuteSql", "Commit", "Rollback", "UpdateDatabaseDdl"} {
			if !methods[m] {
				t.Errorf("connector %d: no %s among %d requests (%v)", i, m, len(reqs), methods)
			}
		}
	}
}

// TestRequestIDAttempts: a retried or resumed call keeps its request
// number and counts its attempts: a stream that fails before its first
// message, one that fails midway and resumes from its token, a unary
// statement and a commit retried after UNAVAILABLE.
func TestRequestIDAttempts(t *testing.T) {
	s := fakespanner.Start(t)
	addRatingUpdates(s)
	ctx := context.Background()
	db := openFake(t, s)
	msgs, err := fakespanner.SplitChecked(faultResultSet(), fakespanner.SplitOptions{MaxValues: 4})
	if err != nil {
		t.Fatal(err)
	}
	sameRequest := func(name string, reqs []fakespanner.Request, want int) {
		t.Helper()
		if len(reqs) != want {
			t.Fatalf("%s: %d requests, want %d", name, len(reqs), want)
		}
		first := requestIDOf(t, reqs[0])
		for i, r := range reqs {
			id := requestIDOf(t, r)
			if id.process != first.process || id.client != first.client || id.request != first.request {
				t.Errorf("%s: attempt %d is %s, another request than %s", name, i+1, id.raw, first.raw)
			}
			if id.attempts != uint64(i+1) {
				t.Errorf("%s: attempt %d carries attempt number %d (%s)", name, i+1, id.attempts, id.raw)
			}
		}
	}

	for _, c := range []struct {
		name  string
		fault fakespanner.Fault
	}{
		{"UNAVAILABLE before the first message", fakespanner.Fault{AfterMessage: 0, Err: fakespanner.ErrUnavailable}},
		{"UNAVAILABLE midway, resumed", fakespanner.Fault{AfterMessage: len(msgs) / 2, Err: fakespanner.ErrUnavailable}},
	} {
		s.ResetRequests()
		s.AddResult("q", &fakespanner.Result{Messages: msgs, Faults: []fakespanner.Fault{c.fault}})
		if _, _, err := readCanon(ctx, db, "q"); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sameRequest(c.name, s.RequestsFor("ExecuteStreamingSql"), 2)
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: fakespanner.ErrUnavailable, Times: 2})
	if _, err := tx.ExecContext(ctx, "UPDATE Singers SET Rating = 1 WHERE TRUE"); err != nil {
		t.Fatal(err)
	}
	sameRequest("DML retried twice", s.RequestsFor("ExecuteSql"), 3)
	s.ResetRequests()
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.ErrUnavailable})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	sameRequest("commit retried", s.RequestsFor("Commit"), 2)
}

// TestRequestIDInError: the error of a failed RPC carries the request id
// of the attempt that failed (driver.RequestIDOf, its text, and the
// official client's *spanner.Error through errors.As), and keeps its gRPC
// code and message: a query whose stream fails, a DML statement and a
// commit.
func TestRequestIDInError(t *testing.T) {
	s := fakespanner.Start(t)
	addRatingUpdates(s)
	ctx := context.Background()
	db := openFake(t, s)
	check := func(name string, err error, code codes.Code, method string) {
		t.Helper()
		if status.Code(err) != code {
			t.Fatalf("%s: %v, want code %v", name, err, code)
		}
		reqs := s.RequestsFor(method)
		if len(reqs) == 0 {
			t.Fatalf("%s: no %s request", name, method)
		}
		want := requestIDOf(t, reqs[len(reqs)-1]).raw
		if got := driver.RequestIDOf(err); got != want {
			t.Errorf("%s: driver.RequestIDOf = %q, want %q (the failed request's)", name, got, want)
		}
		var rid *driver.RequestIDError
		if !errors.As(err, &rid) || rid.ID != want || status.Code(rid.Err) != code {
			t.Errorf("%s: errors.As(*driver.RequestIDError) = %v", name, rid)
		}
		if !strings.Contains(err.Error(), `requestID = "`+want+`"`) {
			t.Errorf("%s: the error's text %q does not name the request id", name, err)
		}
		var se *spanner.Error
		if !errors.As(err, &se) || se.RequestID != want || spanner.ErrCode(se) != code {
			t.Errorf("%s: errors.As(*spanner.Error) = %v", name, se)
		}
	}

	s.AddResult("q", &fakespanner.Result{Messages: []*spannerpb.PartialResultSet{{}}, Faults: []fakespanner.Fault{
		{AfterMessage: 0, Err: status.Error(codes.PermissionDenied, "denied")},
	}})
	_, _, err := readCanon(ctx, db, "q")
	check("query", err, codes.PermissionDenied, "ExecuteStreamingSql")
	if s, _ := status.FromError(err); s.Message() != "denied" {
		t.Errorf("status message %q, want the server's", s.Message())
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: status.Error(codes.FailedPrecondition, "no")})
	_, err = tx.ExecContext(ctx, "UPDATE Singers SET Rating = 1 WHERE TRUE")
	check("DML", err, codes.FailedPrecondition, "ExecuteSql")
	_ = tx.Rollback()

	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Singers SET Rating = 1 WHERE TRUE"); err != nil {
		t.Fatal(err)
	}
	s.AddMethodFault("Commit", fakespanner.Fault{Err: status.Error(codes.InvalidArgument, "bad commit")})
	check("commit", tx.Commit(), codes.InvalidArgument, "Commit")
}
