package spannerfasttest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestMultiRowInsertStoresEveryRow(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'one'), (2, 'two'), (3, 'three')", 3, nil, nil)
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,one", "2,two", "3,three")
}

func TestInsertBindsByPositionInStatementOrder(t *testing.T) {
	r := newRaw(t)
	// Columns out of table order: @p1 goes to b, @p2 to a.
	r.mustExec("INSERT INTO T (b, a) VALUES (@p1, @p2), (@p3, @p4)", 2,
		map[string]*structpb.Value{"p1": str("x"), "p2": str("10"), "p3": str("y"), "p4": str("20")},
		map[string]*spannerpb.Type{"p1": strType(), "p2": intType(), "p3": strType(), "p4": intType()})
	r.wantRows("SELECT a, b FROM T ORDER BY a", "10,x", "20,y")
}

func TestInsertNamedParamsAndLiteralsAndCoercion(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (d, c, a, b) VALUES ('2024-02-29', 2, @id, @name)", 1,
		map[string]*structpb.Value{"id": str("5"), "name": str("five")},
		map[string]*spannerpb.Type{"id": intType(), "name": strType()})
	r.wantRows("SELECT a, b, c, d FROM T", "5,five,2,2024-02-29")
}

func TestInsertOrUpdate(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b, c) VALUES (1, 'one', 1.5)", 1, nil, nil)
	r.mustExec("INSERT OR UPDATE INTO T (a, b) VALUES (1, 'uno'), (2, 'dos')", 2, nil, nil)
	// As on the emulator, the columns the statement does not name become
	// NULL.
	r.wantRows("SELECT a, b, c FROM T ORDER BY a", "1,uno,NULL", "2,dos,NULL")
}

func TestInsertOrIgnore(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'one')", 1, nil, nil)
	r.mustExec("insert or ignore T (a, b) VALUES (1, 'uno'), (2, 'dos'), (2, 'again')", 1, nil, nil)
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,one", "2,dos")
}

func TestInsertDuplicateKeyStoresNothing(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b) VALUES (2, 'two')", 1, nil, nil)
	_, err := r.exec("INSERT INTO T (a, b) VALUES (1, 'one'), (2, 'again')", nil, nil)
	wantCode(t, err, codes.AlreadyExists, "T")
	_, err = r.exec("INSERT INTO T (a, b) VALUES (7, 'x'), (7, 'y')", nil, nil)
	wantCode(t, err, codes.AlreadyExists)
	r.wantRows("SELECT a, b FROM T ORDER BY a", "2,two")
}

func TestFailedRowUndoesEarlierRows(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'one')", 1, nil, nil)
	// The second row breaks NOT NULL inside the engine after the first
	// row was written; the first row's update must be undone.
	_, err := r.exec("INSERT OR UPDATE INTO T (a, b) VALUES (1, 'changed'), (NULL, 'bad')", nil, nil)
	if err == nil {
		t.Fatal("NULL key accepted")
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,one")
}

func TestInsertTypeMismatchIsRefused(t *testing.T) {
	r := newRaw(t)
	_, err := r.exec("INSERT INTO T (a, b) VALUES (1, 2)", nil, nil)
	wantCode(t, err, codes.InvalidArgument, "column b", "INT64")
	r.wantRows("SELECT a FROM T")
}

func TestUpdateAndDeleteCountRows(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b, c) VALUES (1, 'x', 1), (2, 'x', 2), (3, 'y', 3)", 3, nil, nil)
	// A literal between two engine-evaluated expressions.
	r.mustExec("UPDATE T SET c = c * 10, b = @b, d = DATE '2020-01-02' WHERE b = 'x'", 2,
		map[string]*structpb.Value{"b": str("z")}, map[string]*spannerpb.Type{"b": strType()})
	r.wantRows("SELECT a, b, c, d FROM T ORDER BY a", "1,z,10,2020-01-02", "2,z,20,2020-01-02", "3,y,3,NULL")
	r.mustExec("UPDATE T SET b = 'none' WHERE a > 100", 0, nil, nil)
	r.mustExec("DELETE FROM T WHERE c >= 10", 2, nil, nil)
	r.wantRows("SELECT a FROM T", "3")
}

func TestUpdateRefusesWrongTypeAndKey(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'x')", 1, nil, nil)
	_, err := r.exec("UPDATE T SET b = 5 WHERE a = 1", nil, nil)
	wantCode(t, err, codes.InvalidArgument, "column b")
	_, err = r.exec("UPDATE T SET a = 5 WHERE a = 1", nil, nil)
	wantCode(t, err, codes.InvalidArgument, "key column a")
	r.wantRows("SELECT a, b FROM T", "1,x")
}

func TestUnsupportedStatementsGetClearErrors(t *testing.T) {
	r := newRaw(t)
	for _, tc := range []struct {
		sql  string
		code codes.Code
		word string
	}{
		{"INSERT INTO T (a) VALUES (1) THEN RETURN WITH ACTION a", codes.Unimplemented, "WITH ACTION"},
		{"INSERT INTO T (a) VALUES (1) THEN RETURN nope", codes.InvalidArgument, "nope"},
		{"INSERT INTO T VALUES (1)", codes.InvalidArgument, ""},
		{"INSERT INTO Nope (a) VALUES (1)", codes.InvalidArgument, "Nope"},
		{"INSERT INTO T (a, zz) VALUES (1, 2)", codes.InvalidArgument, "zz"},
		{"INSERT INTO T (a, b) VALUES (1)", codes.InvalidArgument, "row 1"},
		{"INSERT OR REPLACE INTO T (a) VALUES (1)", codes.InvalidArgument, "REPLACE"},
	} {
		_, err := r.exec(tc.sql, nil, nil)
		wantCode(t, err, tc.code, tc.word)
	}
	r.wantRows("SELECT a FROM T")
}

func TestInsertSelect(t *testing.T) {
	r := newRaw(t)
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'x'), (2, 'y')", 2, nil, nil)
	r.mustExec("INSERT INTO T (a, b) SELECT a + 10, b FROM T", 2, nil, nil)
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,x", "2,y", "11,x", "12,y")
}

func TestNotNullAndDefaultColumnsAreNotSilentlyNull(t *testing.T) {
	r := newRaw(t)
	if err := r.srv.CreateTables(context.Background(),
		"CREATE TABLE U (k INT64 NOT NULL, v STRING(MAX) NOT NULL, w INT64 DEFAULT (7)) PRIMARY KEY (k)"); err != nil {
		t.Fatal(err)
	}
	_, err := r.exec("INSERT INTO U (k, w) VALUES (1, 1)", nil, nil)
	wantCode(t, err, codes.FailedPrecondition, "column v")
	_, err = r.exec("INSERT INTO U (k, v) VALUES (1, 'x')", nil, nil)
	wantCode(t, err, codes.Unimplemented, "column w", "DEFAULT")
	r.mustExec("INSERT INTO U (k, v, w) VALUES (1, 'x', 2)", 1, nil, nil)
	// INSERT OR UPDATE writes the whole row, as on the emulator: the NOT
	// NULL column must be named even when the row exists.
	_, err = r.exec("INSERT OR UPDATE INTO U (k, w) VALUES (1, 3)", nil, nil)
	wantCode(t, err, codes.FailedPrecondition, "column v")
	r.mustExec("INSERT OR UPDATE INTO U (k, v, w) VALUES (1, 'y', 3)", 1, nil, nil)
	r.wantRows("SELECT k, v, w FROM U", "1,y,3")
}

func TestThenReturn(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	run := func(sql string) (*spannerpb.ResultSet, error) {
		rs, err := r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: sql, Transaction: rwBegin(), Seqno: 1})
		if err != nil {
			return nil, err
		}
		_, err = r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session,
			Transaction:    &spannerpb.CommitRequest_TransactionId{TransactionId: rs.GetMetadata().GetTransaction().GetId()},
			PrecommitToken: rs.GetPrecommitToken()})
		return rs, err
	}
	text := func(rs *spannerpb.ResultSet) string {
		var out []string
		for _, f := range rs.GetMetadata().GetRowType().GetFields() {
			out = append(out, f.GetName())
		}
		for _, row := range rs.GetRows() {
			var vals []string
			for _, v := range row.GetValues() {
				switch k := v.GetKind().(type) {
				case *structpb.Value_StringValue:
					vals = append(vals, fmt.Sprintf("%q", k.StringValue))
				case *structpb.Value_NullValue:
					vals = append(vals, "null")
				default:
					vals = append(vals, fmt.Sprint(v.AsInterface()))
				}
			}
			out = append(out, "["+strings.Join(vals, ",")+"]")
		}
		return fmt.Sprintf("%v n=%d", out, rs.GetStats().GetRowCountExact())
	}
	for _, tc := range []struct{ sql, want string }{
		// Rows in statement order, with the statement's row count.
		{"INSERT INTO T (a, b) VALUES (3, 'three'), (1, 'one') THEN RETURN a, b AS name", `[a name ["3","three"] ["1","one"]] n=2`},
		{"UPDATE T SET c = 2.5 WHERE a > 0 THEN RETURN a * 10 AS ten, c", `[ten c ["10",2.5] ["30",2.5]] n=2`},
		{"UPDATE T SET c = 1 WHERE a = 99 THEN RETURN a", `[a] n=0`},
		// A DELETE returns the rows as they were.
		{"DELETE FROM T WHERE a = 3 THEN RETURN *", `[a b c d ["3","three",2.5,null]] n=1`},
		{"INSERT OR IGNORE INTO T (a, b) VALUES (1, 'x'), (4, 'then return') THEN RETURN b", `[b ["then return"]] n=1`},
	} {
		rs, err := run(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := text(rs); got != tc.want {
			t.Fatalf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,one", "4,then return")
	// A list that fails leaves nothing behind.
	_, err := run("INSERT INTO T (a, b) VALUES (5, 'five') THEN RETURN nope")
	wantCode(t, err, codes.InvalidArgument)
	r.wantRows("SELECT a FROM T ORDER BY a", "1", "4")
	// Streaming returns the rows too.
	st, err := r.c.ExecuteStreamingSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "UPDATE T SET b = 'x' WHERE true THEN RETURN a", Transaction: rwBegin(), Seqno: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.GetValues()) != 2 || p.GetStats().GetRowCountExact() != 2 {
		t.Fatalf("streamed THEN RETURN: %v", p)
	}
	if _, err := r.c.Rollback(ctx, &spannerpb.RollbackRequest{Session: r.session, TransactionId: p.GetMetadata().GetTransaction().GetId()}); err != nil {
		t.Fatal(err)
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,one", "4,then return")
}
