package spannerfasttest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// Transactions through database/sql and the spannerfast driver: DML takes
// effect at commit, as on Spanner and the emulator.

func openSQL(t *testing.T, r *raw) *sql.DB {
	t.Helper()
	db, err := sql.Open("spannerfast", r.srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tRows is the rows of T as text, read by q.
func tRows(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), "SELECT a, b FROM T ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a int64
		var b sql.NullString
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d:%s", a, b.String))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func mustExecSQL(t *testing.T, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) {
	t.Helper()
	if _, err := q.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestRollbackUndoesDML(t *testing.T) {
	r := newRaw(t)
	db := openSQL(t, r)
	ctx := context.Background()
	mustExecSQL(t, db, "INSERT INTO T (a, b) VALUES (1, 'one'), (2, 'two')")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExecSQL(t, tx, "INSERT INTO T (a, b) VALUES (3, 'three')")
	mustExecSQL(t, tx, "UPDATE T SET b = 'uno' WHERE a = 1")
	mustExecSQL(t, tx, "DELETE FROM T WHERE a = 2")
	mustExecSQL(t, tx, "UPDATE T SET b = 'tres' WHERE a = 3")
	if got := tRows(t, tx); got != "1:uno 3:tres" {
		t.Fatalf("inside the transaction: %q", got)
	}
	// A failing statement (as in an ORM's failed Create) fails the rest of
	// the transaction, as on the emulator, and leaves its earlier writes to
	// the rollback.
	if _, err := tx.ExecContext(ctx, "INSERT INTO T (a, b) VALUES (1, 'dup')"); codeOf(err) != codes.AlreadyExists {
		t.Fatalf("duplicate insert: %v", err)
	}
	if _, err := tx.QueryContext(ctx, "SELECT a FROM T"); codeOf(err) != codes.AlreadyExists {
		t.Fatalf("query after the failed statement: %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := tRows(t, db); got != "1:one 2:two" {
		t.Fatalf("after rollback: %q", got)
	}

	// Its commit fails the same way and undoes it; an analysis error (an
	// unknown column) leaves the transaction usable.
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExecSQL(t, tx, "INSERT INTO T (a, b) VALUES (5, 'five')")
	if _, err := tx.ExecContext(ctx, "UPDATE T SET nope = 1 WHERE a = 5"); codeOf(err) != codes.InvalidArgument {
		t.Fatalf("unknown column: %v", err)
	}
	mustExecSQL(t, tx, "UPDATE T SET b = 'cinq' WHERE a = 5")
	if _, err := tx.ExecContext(ctx, "INSERT INTO T (a, b) VALUES (5, 'dup')"); codeOf(err) != codes.AlreadyExists {
		t.Fatalf("duplicate insert: %v", err)
	}
	if err := tx.Commit(); codeOf(err) != codes.AlreadyExists {
		t.Fatalf("commit after a failed statement: %v", err)
	}
	if got := tRows(t, db); got != "1:one 2:two" {
		t.Fatalf("after the failed commit: %q", got)
	}
	mustExecSQL(t, db, "INSERT INTO T (a, b) VALUES (6, 'six')")
}

func TestUncommittedDMLIsInvisibleToOthers(t *testing.T) {
	r := newRaw(t)
	db := openSQL(t, r)
	ctx := context.Background()
	mustExecSQL(t, db, "INSERT INTO T (a, b) VALUES (1, 'one')")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExecSQL(t, tx, "INSERT INTO T (a, b) VALUES (2, 'two')")
	mustExecSQL(t, tx, "UPDATE T SET b = 'uno' WHERE a = 1")
	if got := tRows(t, tx); got != "1:uno 2:two" {
		t.Fatalf("the transaction reads its own writes: %q", got)
	}
	// Autocommit queries and read-only transactions see committed data,
	// and do not wait for the writer.
	if got := tRows(t, db); got != "1:one" {
		t.Fatalf("another connection sees %q before commit", got)
	}
	ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := tRows(t, ro); got != "1:one" {
		t.Fatalf("a read-only transaction sees %q before commit", got)
	}
	if err := ro.Commit(); err != nil {
		t.Fatal(err)
	}
	// The hidden writes are back for the writer.
	if got := tRows(t, tx); got != "1:uno 2:two" {
		t.Fatalf("the transaction after others read: %q", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := tRows(t, db); got != "1:uno 2:two" {
		t.Fatalf("after commit: %q", got)
	}
}

func TestDMLAndMutationsCommitTogether(t *testing.T) {
	r := newRaw(t)
	db := openSQL(t, r)
	ctx := context.Background()
	mustExecSQL(t, db, "INSERT INTO T (a, b) VALUES (1, 'one')")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buffer := func(ms ...*spanner.Mutation) {
		t.Helper()
		if err := c.Raw(func(dc any) error { return dc.(sfdriver.SpannerConn).BufferWrite(ms) }); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExecSQL(t, tx, "INSERT INTO T (a, b) VALUES (2, 'dml')")
	buffer(spanner.Insert("T", []string{"a", "b"}, []any{int64(3), "mutation"}))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := tRows(t, db); got != "1:one 2:dml 3:mutation" {
		t.Fatalf("after commit: %q", got)
	}

	// A mutation that fails at commit takes the transaction's DML with it.
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExecSQL(t, tx, "INSERT INTO T (a, b) VALUES (4, 'dml')")
	mustExecSQL(t, tx, "DELETE FROM T WHERE a = 1")
	buffer(spanner.Insert("T", []string{"a", "b"}, []any{int64(2), "exists"}))
	if err := tx.Commit(); codeOf(err) != codes.AlreadyExists {
		t.Fatalf("commit with a conflicting mutation: %v", err)
	}
	if got := tRows(t, db); got != "1:one 2:dml 3:mutation" {
		t.Fatalf("after the failed commit: %q", got)
	}
}

// Concurrent read-modify-write transactions wait for each other: no update
// is lost.
func TestConcurrentReadModifyWrite(t *testing.T) {
	r := newRaw(t)
	db := openSQL(t, r)
	ctx := context.Background()
	mustExecSQL(t, db, "INSERT INTO T (a, c) VALUES (1, 0)")
	const workers, rounds = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				errs <- sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
					var c float64
					if err := tx.QueryRowContext(ctx, "SELECT c FROM T WHERE a = 1").Scan(&c); err != nil {
						return err
					}
					_, err := tx.ExecContext(ctx, "UPDATE T SET c = @c WHERE a = 1", sql.Named("c", c+1))
					return err
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var c float64
	if err := db.QueryRowContext(ctx, "SELECT c FROM T WHERE a = 1").Scan(&c); err != nil {
		t.Fatal(err)
	}
	if c != workers*rounds {
		t.Fatalf("counter %v after %d increments", c, workers*rounds)
	}
}

// A second read-write transaction waits for the first, then is aborted, as
// on the emulator; the first carries on. A writer idle longer than the
// idle limit is aborted by the next write instead.
func TestSecondWriterIsAbortedAndIdleWriterWounded(t *testing.T) {
	r := newRaw(t)
	r.srv.svc.lockWait = time.Millisecond
	ctx := context.Background()
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'one')", 1, nil, nil)
	begin := func() []byte {
		tx, err := r.c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: r.session, Options: rwBegin().GetBegin()})
		if err != nil {
			t.Fatal(err)
		}
		return tx.GetId()
	}
	dml := func(id []byte, seq int64, sql string) (*spannerpb.ResultSet, error) {
		return r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Transaction: byID(id), Seqno: seq, Sql: sql})
	}
	commit := func(id []byte, tok *spannerpb.MultiplexedSessionPrecommitToken) error {
		_, err := r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session,
			Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: id}, PrecommitToken: tok})
		return err
	}
	t1, t2 := begin(), begin()
	rs1, err := dml(t1, 1, "UPDATE T SET b = 't1' WHERE a = 1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = dml(t2, 1, "INSERT INTO T (a, b) VALUES (2, 't2')")
	wantCode(t, err, codes.Aborted, "one read-write transaction at a time")
	// The aborted transaction stays aborted.
	_, err = dml(t2, 2, "SELECT 1")
	wantCode(t, err, codes.Aborted)
	// A single-use commit waits for the writer too.
	_, err = r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session,
		Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: rwBegin().GetBegin()},
		Mutations: []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: "T",
			KeySet: &spannerpb.KeySet{All: true}}}}}})
	wantCode(t, err, codes.Aborted)
	if err := commit(t1, rs1.GetPrecommitToken()); err != nil {
		t.Fatal(err)
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,t1")

	// An idle writer is aborted by the next write, and its DML undone.
	r.srv.svc.mu.Lock()
	r.srv.svc.idleAbort = 0
	r.srv.svc.mu.Unlock()
	t3, t4 := begin(), begin()
	rs3, err := dml(t3, 1, "DELETE FROM T WHERE true")
	if err != nil {
		t.Fatal(err)
	}
	rs4, err := dml(t4, 1, "INSERT INTO T (a, b) VALUES (4, 't4')")
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, commit(t3, rs3.GetPrecommitToken()), codes.Aborted)
	if err := commit(t4, rs4.GetPrecommitToken()); err != nil {
		t.Fatal(err)
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,t1", "4,t4")
}

// Deleting a session ends its transactions and undoes their DML.
func TestDeleteSessionUndoesItsTransaction(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	sess, err := r.c.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: r.srv.DatabasePath()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess.GetName(), Transaction: rwBegin(), Seqno: 1,
		Sql: "INSERT INTO T (a, b) VALUES (@a, 'x')", Params: &structpb.Struct{Fields: map[string]*structpb.Value{"a": str("9")}},
		ParamTypes: map[string]*spannerpb.Type{"a": intType()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.DeleteSession(ctx, &spannerpb.DeleteSessionRequest{Name: sess.GetName()}); err != nil {
		t.Fatal(err)
	}
	// The next writer does not wait, and the row is gone.
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'one')", 1, nil, nil)
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,one")
}

func codeOf(err error) codes.Code { return status.Code(err) }
