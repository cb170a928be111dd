package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// The database's dialect: the first connection of a connector asks the
// database (fakespanner.DialectQuery, go-sql-spanner's query), unless the
// DSN gives database_dialect; SHOW VARIABLE database_dialect reports it.

// showText runs SHOW VARIABLE name on q and returns its value as text.
func showText(t *testing.T, ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) string {
	t.Helper()
	var v string
	if err := q.QueryRowContext(ctx, "SHOW VARIABLE "+name).Scan(&v); err != nil {
		t.Fatalf("SHOW VARIABLE %s: %v", name, err)
	}
	return v
}

// TestFakeDialectDetectedOnce: concurrent first connections share one
// detection (the answer is slow, so they overlap), later ones ask nothing,
// and every connection reports the database's answer, in both decode
// modes.
func TestFakeDialectDetectedOnce(t *testing.T) {
	ctx := context.Background()
	for i, dialect := range []string{"GOOGLE_STANDARD_SQL", "POSTGRESQL", "GOOGLE_STANDARD_SQL", "POSTGRESQL"} {
		s := fakespanner.Start(t)
		r := fakespanner.DialectResult(dialect)
		r.Faults = []fakespanner.Fault{{Delay: 200 * time.Millisecond}}
		s.AddResult(fakespanner.DialectQuery, r)
		db := openFake(t, s, fmt.Sprintf("rawDecode=%v", i >= 2))
		var wg sync.WaitGroup
		conns := make([]*sql.Conn, 4)
		errs := make([]error, len(conns))
		for i := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conns[i], errs[i] = db.Conn(ctx)
			}()
		}
		wg.Wait()
		for i, c := range conns {
			if errs[i] != nil {
				t.Fatalf("%s: db.Conn: %v", dialect, errs[i])
			}
			if got := showText(t, ctx, c, "database_dialect"); got != dialect {
				t.Errorf("%s: SHOW VARIABLE database_dialect = %q", dialect, got)
			}
		}
		more, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := showText(t, ctx, more, "database_dialect"); got != dialect {
			t.Errorf("%s: a later connection reports %q", dialect, got)
		}
		for _, c := range append(conns, more) {
			c.Close()
		}
		if n := s.DialectQueries(); n != 1 {
			t.Errorf("%s: %d dialect queries, want 1", dialect, n)
		}
		if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 0 {
			t.Errorf("%s: the dialect query was recorded as a request (%d)", dialect, n)
		}
	}
}

// TestFakeDialectOverride: database_dialect in the DSN is taken as the
// database's dialect without a round trip, whatever the database says.
func TestFakeDialectOverride(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ server, dsn string }{
		{"POSTGRESQL", "GOOGLE_STANDARD_SQL"},
		{"GOOGLE_STANDARD_SQL", "POSTGRESQL"},
	} {
		s := fakespanner.Start(t)
		s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult(tc.server))
		db := openFake(t, s, "database_dialect="+tc.dsn)
		if got := showText(t, ctx, db, "database_dialect"); got != tc.dsn {
			t.Errorf("database_dialect=%s: SHOW VARIABLE database_dialect = %q", tc.dsn, got)
		}
		if err := db.PingContext(ctx); err != nil {
			t.Fatal(err)
		}
		if n := s.DialectQueries(); n != 0 {
			t.Errorf("database_dialect=%s: %d dialect queries sent, want none", tc.dsn, n)
		}
	}
}

// TestFakeDialectDetectionFails: a failed detection fails the connection
// with the server's error and gRPC code, and is not kept: the next
// connection asks again and succeeds.
func TestFakeDialectDetectionFails(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	r := fakespanner.DialectResult("POSTGRESQL")
	r.Faults = []fakespanner.Fault{{Err: status.Error(codes.PermissionDenied, "fakespanner: no read on INFORMATION_SCHEMA")}}
	s.AddResult(fakespanner.DialectQuery, r)
	db := openFake(t, s)
	if _, err := db.Conn(ctx); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("db.Conn: %v, want PermissionDenied", err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("second db.Conn: %v", err)
	}
	defer c.Close()
	if got := showText(t, ctx, c, "database_dialect"); got != "POSTGRESQL" {
		t.Errorf("SHOW VARIABLE database_dialect = %q, want POSTGRESQL", got)
	}
	if n := s.DialectQueries(); n != 2 {
		t.Errorf("%d dialect queries, want 2 (the failure is not kept)", n)
	}

	// A dialect the driver does not know fails the connection too.
	s2 := fakespanner.Start(t)
	s2.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult("KLINGON"))
	if _, err := openFake(t, s2).Conn(ctx); err == nil {
		t.Fatal("db.Conn on a database of an unknown dialect succeeded")
	}
}

// TestFakeDialectNotBoundByStatementTimeout: statement_timeout bounds the
// application's statements, not the connector's dialect question (a slow
// answer to it used to fail the connection with DeadlineExceeded); the
// property still bounds the statements.
func TestFakeDialectNotBoundByStatementTimeout(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	r := fakespanner.DialectResult("GOOGLE_STANDARD_SQL")
	r.Faults = []fakespanner.Fault{{Delay: 100 * time.Millisecond}}
	s.AddResult(fakespanner.DialectQuery, r)
	slow := fakespanner.DialectResult("GOOGLE_STANDARD_SQL")
	slow.Faults = []fakespanner.Fault{{Delay: 100 * time.Millisecond}}
	s.AddResult("SELECT 1", slow)
	db := openFake(t, s, "statement_timeout=20ms")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("db.Conn with a dialect answer slower than statement_timeout: %v", err)
	}
	defer c.Close()
	if got := showText(t, ctx, c, "database_dialect"); got != "GOOGLE_STANDARD_SQL" {
		t.Errorf("SHOW VARIABLE database_dialect = %q", got)
	}
	var v string
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&v); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("a statement slower than statement_timeout: %v, want DeadlineExceeded", err)
	}
}

// TestFakeDialectConnectionStateDefault: connection_state_type DEFAULT is
// TRANSACTIONAL on a PostgreSQL-dialect database (a rollback undoes SET)
// and NON_TRANSACTIONAL on a GoogleSQL one, as in go-sql-spanner; a value
// in the DSN wins over the dialect's default.
func TestFakeDialectConnectionStateDefault(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		dialect       string
		props         []string
		transactional bool
	}{
		{"GOOGLE_STANDARD_SQL", nil, false},
		{"POSTGRESQL", nil, true},
		{"POSTGRESQL", []string{"connection_state_type=NON_TRANSACTIONAL"}, false},
		{"GOOGLE_STANDARD_SQL", []string{"database_dialect=POSTGRESQL"}, true},
	} {
		s, db := startTxnFake(t, tc.props...)
		s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult(tc.dialect))
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []string{"BEGIN", "SET optimizer_version = '5'", txnUpdate, "ROLLBACK"} {
			if _, err := c.ExecContext(ctx, st); err != nil {
				t.Fatalf("%s %v: %s: %v", tc.dialect, tc.props, st, err)
			}
		}
		want := "5"
		if tc.transactional {
			want = ""
		}
		if got := showText(t, ctx, c, "optimizer_version"); got != want {
			t.Errorf("%s %v: optimizer_version after ROLLBACK = %q, want %q", tc.dialect, tc.props, got, want)
		}
		c.Close()
	}
}

// TestFakeDialectParsesStatements: a connector parses statements in its
// database's dialect: on a PostgreSQL database `$1` is a parameter (sent as
// p1) and `?` becomes `$1`; on a GoogleSQL one `?` becomes `@p1`.
func TestFakeDialectParsesStatements(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ dialect, query, sent, param string }{
		{"POSTGRESQL", "SELECT $1", "SELECT $1", "p1"},
		{"POSTGRESQL", "SELECT ?", "SELECT $1", "p1"},
		{"GOOGLE_STANDARD_SQL", "SELECT ?", "SELECT @p1", "p1"},
	} {
		s := fakespanner.Start(t)
		s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult(tc.dialect))
		s.AddResult(tc.sent, fakespanner.Select1())
		db := openFake(t, s)
		var n int64
		if err := db.QueryRowContext(ctx, tc.query, int64(7)).Scan(&n); err != nil {
			t.Fatalf("%s: %s: %v", tc.dialect, tc.query, err)
		}
		reqs := s.RequestsFor("ExecuteStreamingSql")
		if len(reqs) != 1 {
			t.Fatalf("%s: %d requests", tc.dialect, len(reqs))
		}
		req := reqs[0].ExecuteSQL()
		if req.GetSql() != tc.sent || req.GetParams().GetFields()[tc.param].GetStringValue() != "7" {
			t.Errorf("%s: %s sent as %q with params %v, want %q with %s = 7", tc.dialect, tc.query, req.GetSql(), req.GetParams(), tc.sent, tc.param)
		}
	}
}
