package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Pool hygiene: what one statement or one user of a pooled connection sets
// never reaches the next. Every test here runs with SetMaxOpenConns(1), so
// database/sql hands the same connection out again.

const poolQuery = "SELECT s FROM t"

// startPoolFake serves poolQuery (one STRING row) and returns a
// one-connection pool on it.
func startPoolFake(t *testing.T, props ...string) (*fakespanner.Server, *sql.DB) {
	t.Helper()
	s := fakespanner.Start(t)
	s.AddResult(poolQuery, &fakespanner.Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "s", Type: typ(spannerpb.TypeCode_STRING)},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{str("text")}}},
	}})
	db := openFake(t, s, props...)
	db.SetMaxOpenConns(1)
	return s, db
}

// queryer is what *sql.DB, *sql.Conn and *sql.Stmt wrappers share here.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// decodedRaw runs poolQuery and reports whether its STRING came back raw
// ([]byte) rather than safe (string).
func decodedRaw(t *testing.T, q queryer) bool {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), poolQuery)
	if err != nil {
		t.Fatalf("%s: %v", poolQuery, err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("%s: no row: %v", poolQuery, rows.Err())
	}
	var v any
	if err := rows.Scan(&v); err != nil {
		t.Fatal(err)
	}
	switch v.(type) {
	case []byte:
		return true
	case string:
		return false
	}
	t.Fatalf("STRING scanned as %T", v)
	return false
}

// unsendable returns an argument no encoder accepts.
func unsendable() any { return make(chan int) }

// TestFakeQueryOptionsNeverLeak: driver.RawDecode applies to the statement it
// came with, whatever path that statement takes, and never to the next one.
func TestFakeQueryOptionsNeverLeak(t *testing.T) {
	ctx := context.Background()
	_, db := startPoolFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw := sfdriver.RawDecode(true)

	steps := []struct {
		name string
		run  func() error
	}{
		{"a later argument fails its check", func() error {
			_, err := c.QueryContext(ctx, poolQuery+" WHERE x = ?", raw, unsendable())
			return err
		}},
		{"an Exec of SET", func() error {
			_, err := c.ExecContext(ctx, "SET READ_ONLY_STALENESS = 'STRONG'", raw)
			return err
		}},
		{"a client-side SHOW through QueryContext", func() error {
			rows, err := c.QueryContext(ctx, "SHOW VARIABLE read_only_staleness", raw)
			if err == nil {
				rows.Close()
			}
			return err
		}},
		{"a query the server rejects", func() error {
			_, err := c.QueryContext(ctx, "SELECT no_such_query", raw)
			return err
		}},
		{"an Exec of a query", func() error {
			_, err := c.ExecContext(ctx, poolQuery, raw)
			return err
		}},
	}
	for _, st := range steps {
		_ = st.run() // some fail on purpose; none may leave raw mode behind
		if decodedRaw(t, c) {
			t.Fatalf("after %s with RawDecode(true), the next query on the connection decoded raw", st.name)
		}
	}
	// The option still works for the statement it is given with.
	rows, err := c.QueryContext(ctx, poolQuery, raw)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	var v any
	rows.Scan(&v)
	rows.Close()
	if _, ok := v.([]byte); !ok {
		t.Fatalf("RawDecode(true) with its own query: STRING as %T, want []byte", v)
	}
}

// TestFakePreparedQueryOptionsNeverLeak: the same for prepared statements,
// whose arguments database/sql checks through the statement, including a
// call database/sql rejects for its argument count.
func TestFakePreparedQueryOptionsNeverLeak(t *testing.T) {
	ctx := context.Background()
	_, db := startPoolFake(t)
	stmt, err := db.PrepareContext(ctx, poolQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	if _, err := stmt.QueryContext(ctx, sfdriver.RawDecode(true), unsendable()); err == nil {
		t.Fatal("a prepared query with an unsendable argument succeeded")
	}
	if _, err := stmt.QueryContext(ctx, sfdriver.RawDecode(true), 1, 2); err == nil {
		t.Fatal("a prepared query with two arguments for no parameter succeeded")
	}
	rows, err := stmt.QueryContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	var v any
	if err := rows.Scan(&v); err != nil {
		t.Fatal(err)
	}
	if _, ok := v.(string); !ok {
		t.Fatalf("prepared query after failed calls with RawDecode(true): STRING as %T, want string (safe)", v)
	}
}

// staleness returns the read-only options of the last query sent.
func lastReadOnly(t *testing.T, s *fakespanner.Server) *spannerpb.TransactionOptions_ReadOnly {
	t.Helper()
	return lastRequest(t, s).ExecuteSQL().GetTransaction().GetSingleUse().GetReadOnly()
}

// TestFakeResetSession: SET through a pooled *sql.DB lasts only while that
// user holds the connection; the next user gets the DSN's settings.
func TestFakeResetSession(t *testing.T) {
	ctx := context.Background()
	s, db := startPoolFake(t)

	if _, err := db.ExecContext(ctx, "SET READ_ONLY_STALENESS = 'EXACT_STALENESS 10s'"); err != nil {
		t.Fatal(err)
	}
	decodedRaw(t, db)
	if ro := lastReadOnly(t, s); !ro.GetStrong() {
		t.Fatalf("query after another user's SET on the pooled connection: read-only options %v, want strong", ro)
	}

	// Held with db.Conn, the setting lasts for every statement on it.
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"SET READ_ONLY_STALENESS = 'EXACT_STALENESS 10s'", "SET RAW_DECODE = true"} {
		if _, err := c.ExecContext(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if !decodedRaw(t, c) {
			t.Fatal("SET RAW_DECODE = true did not last on the held connection")
		}
		if ro := lastReadOnly(t, s); ro.GetExactStaleness().AsDuration().Seconds() != 10 {
			t.Fatalf("held connection after SET: read-only options %v, want exact staleness 10s", ro)
		}
	}
	c.Close()

	// Given back, the connection starts the next user from the DSN.
	if decodedRaw(t, db) {
		t.Fatal("raw decode set by an earlier user survived ResetSession")
	}
	if ro := lastReadOnly(t, s); !ro.GetStrong() {
		t.Fatalf("after the holder released it: read-only options %v, want strong", ro)
	}
	var v any
	if err := db.QueryRowContext(ctx, "SHOW VARIABLE read_only_staleness").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if got := strings.ToUpper(fmtValue(v)); !strings.Contains(got, "STRONG") {
		t.Fatalf("SHOW VARIABLE read_only_staleness after reset = %v, want strong", v)
	}

	// The DSN's own settings are what the reset returns to.
	s2, dbRaw := startPoolFake(t, "rawDecode=true")
	_ = s2
	if _, err := dbRaw.ExecContext(ctx, "SET RAW_DECODE = false"); err != nil {
		t.Fatal(err)
	}
	if !decodedRaw(t, dbRaw) {
		t.Fatal("after ResetSession, a rawDecode=true DSN decoded safe")
	}
}

func fmtValue(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	}
	return ""
}

// TestFakeStatementTagOneShot: statement_tag tags the next statement sent
// and no other, also when that statement fails before it is sent.
func TestFakeStatementTagOneShot(t *testing.T) {
	ctx := context.Background()
	s, db := startPoolFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tag := func() string { return lastRequest(t, s).ExecuteSQL().GetRequestOptions().GetRequestTag() }

	if _, err := c.ExecContext(ctx, "SET STATEMENT_TAG = 'first'"); err != nil {
		t.Fatal(err)
	}
	// Client-side statements do not spend it.
	if rows, err := c.QueryContext(ctx, "SHOW VARIABLE statement_tag"); err != nil {
		t.Fatal(err)
	} else {
		rows.Close()
	}
	decodedRaw(t, c)
	if got := tag(); got != "first" {
		t.Fatalf("statement after SET STATEMENT_TAG: tag %q, want %q", got, "first")
	}
	decodedRaw(t, c)
	if got := tag(); got != "" {
		t.Fatalf("second statement after SET STATEMENT_TAG: tag %q, want none", got)
	}

	// A statement that fails on the client spends the tag too.
	if _, err := c.ExecContext(ctx, "SET STATEMENT_TAG = 'second'"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.QueryContext(ctx, poolQuery+" WHERE a = ? AND b = @b", 1); err == nil {
		t.Fatal("mixing ? and @b succeeded")
	}
	decodedRaw(t, c)
	if got := tag(); got != "" {
		t.Fatalf("statement after a failed tagged statement: tag %q, want none", got)
	}
}

// TestFakeUnsupportedStatementsSendNothing: an Exec of a query fails with
// FailedPrecondition without reaching the server. (DDL, which used to fail
// here too, runs now: fake_ddl_test.go.)
func TestFakeUnsupportedStatementsSendNothing(t *testing.T) {
	ctx := context.Background()
	s, db := startPoolFake(t)
	decodedRaw(t, db) // the session exists; count only what follows
	before := len(s.Requests())
	for _, c := range []struct {
		sql  string
		exec bool
		code codes.Code
	}{
		{poolQuery, true, codes.FailedPrecondition},
	} {
		var err error
		if c.exec {
			_, err = db.ExecContext(ctx, c.sql)
		} else {
			_, err = db.QueryContext(ctx, c.sql)
		}
		if status.Code(err) != c.code {
			t.Errorf("%s (exec %v): %v, want code %v", c.sql, c.exec, err, c.code)
		}
		if err != nil && strings.Contains(err.Error(), "client-side") {
			t.Errorf("%s: error %q speaks of client-side statements", c.sql, err)
		}
	}
	if after := len(s.Requests()); after != before {
		t.Fatalf("%d requests reached the server for statements that must fail on the client", after-before)
	}
}

// TestFakeReadTimestampAfterQuery: autocommit queries ask Spanner for their
// read timestamp, and SHOW VARIABLE read_timestamp reports it afterwards.
func TestFakeReadTimestampAfterQuery(t *testing.T) {
	ctx := context.Background()
	s, db := startPoolFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before any
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE read_timestamp").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if before != nil {
		t.Fatalf("read_timestamp before any query = %v, want NULL", before)
	}
	decodedRaw(t, c)
	if !lastReadOnly(t, s).GetReturnReadTimestamp() {
		t.Fatal("the autocommit query did not ask for its read timestamp")
	}
	var got time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE read_timestamp").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if !got.Equal(fakespanner.ReadTimestamp) {
		t.Fatalf("read_timestamp after a query = %v, want %v", got, fakespanner.ReadTimestamp)
	}
}
