package e2e

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// go-sql-spanner's Go API beyond ExecOptions (fake_compat_test.go):
// RunTransaction's handling of a panicking function, the commit response,
// and the SpannerConn extras.

// TestFakeRunTransactionPanic: a panic in the function, with every
// variant, rolls the transaction back and frees its connection (one
// connection in the pool: the next statement would wait forever
// otherwise), and comes back as a *PanicError with code UNKNOWN.
func TestFakeRunTransactionPanic(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, db := startTxnFake(t)
	db.SetMaxOpenConns(1)
	panicky := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			return err
		}
		panic("boom")
	}
	variants := map[string]func() error{
		"RunTransaction": func() error { return sfdriver.RunTransaction(ctx, db, nil, panicky) },
		"RunTransactionWithOptions": func() error {
			return sfdriver.RunTransactionWithOptions(ctx, db, nil, panicky, spanner.TransactionOptions{TransactionTag: "t"})
		},
		"RunTransactionWithCommitResponse": func() error {
			resp, err := sfdriver.RunTransactionWithCommitResponse(ctx, db, nil, panicky, spanner.TransactionOptions{})
			if resp != nil {
				t.Errorf("commit response %v after a panic", resp)
			}
			return err
		},
		"panic(nil)": func() error {
			return sfdriver.RunTransaction(ctx, db, nil, func(context.Context, *sql.Tx) error { panic(nil) })
		},
	}
	for name, run := range variants {
		err := run()
		var pe *sfdriver.PanicError
		if !errors.As(err, &pe) || status.Code(err) != codes.Unknown {
			t.Fatalf("%s: err %v (%T), want a *PanicError with code Unknown", name, err, err)
		}
		if name == "panic(nil)" {
			var pn *runtime.PanicNilError
			if !errors.As(err, &pn) {
				t.Fatalf("%s: value %v, want a *runtime.PanicNilError", name, pe.Value)
			}
		} else if pe.Value != "boom" || len(pe.Stack) == 0 {
			t.Fatalf("%s: value %v, stack %d bytes", name, pe.Value, len(pe.Stack))
		}
		// The only connection is free again and nothing was committed.
		readStrings(t, mustQuery(t, db, txnQuery))
	}
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Fatalf("%d Commit requests after panics, want 0", n)
	}
	if n := len(s.RequestsFor("Rollback")); n != 3 {
		t.Fatalf("%d Rollback requests, want 3 (one per transaction that began)", n)
	}
	waitIdle(t, db)
	verifyNoLeak(t, s, db, ignore)
}

// TestFakeRunTransactionWithCommitResponse: the response of the attempt
// that committed, with the commit stats that were asked for; nil for a
// read-only transaction.
func TestFakeRunTransactionWithCommitResponse(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	runs := 0
	resp, err := sfdriver.RunTransactionWithCommitResponse(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		runs++
		_, err := tx.ExecContext(ctx, txnUpdate)
		return err
	}, spanner.TransactionOptions{CommitOptions: spanner.CommitOptions{ReturnCommitStats: true}})
	if err != nil {
		t.Fatal(err)
	}
	commits := s.RequestsFor("Commit")
	if runs != 2 || len(commits) != 2 || !commits[1].Message.(*spannerpb.CommitRequest).GetReturnCommitStats() {
		t.Fatalf("%d runs, %d commits", runs, len(commits))
	}
	if resp == nil || resp.CommitTs.IsZero() || resp.CommitStats == nil {
		t.Fatalf("commit response %+v, want a timestamp and stats", resp)
	}
	resp, err = sfdriver.RunTransactionWithCommitResponse(ctx, db, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx *sql.Tx) error {
		readStrings(t, mustQuery(t, tx, txnQuery))
		return nil
	}, spanner.TransactionOptions{})
	if err != nil || resp != nil {
		t.Fatalf("read-only: %v, %v; want nil, nil", resp, err)
	}
}

// TestFakePartitionQueryOptionsAndTokens: PartitionQuery always carries
// PartitionOptions, as the official client sends them (zero when nothing
// is set; go-sql-spanner's test server reads them without a nil check),
// with ExecOptions' MaxPartitions and PartitionBytes when set; each
// Partition's GetPartitionToken is the token the server gave it.
func TestFakePartitionQueryOptionsAndTokens(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddPartitions(partSQL, partResult(0, 2), partResult(1, 3))
	db := openFake(t, s)
	ctx := context.Background()
	tx, err := sfdriver.BeginBatchReadOnlyTransaction(ctx, db, sfdriver.BatchReadOnlyTransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var plain, sized sfdriver.PartitionedQuery
	if err := tx.QueryRowContext(ctx, partSQL, sfdriver.PartitionQuery()).Scan(&plain); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRowContext(ctx, partSQL, sfdriver.ExecOptions{PartitionedQueryOptions: sfdriver.PartitionedQueryOptions{
		PartitionQuery: true, PartitionOptions: spanner.PartitionOptions{MaxPartitions: 7, PartitionBytes: 4096},
	}}).Scan(&sized); err != nil {
		t.Fatal(err)
	}
	reqs := s.RequestsFor("PartitionQuery")
	if len(reqs) != 2 {
		t.Fatalf("%d PartitionQuery requests, want 2", len(reqs))
	}
	first := reqs[0].Message.(*spannerpb.PartitionQueryRequest).GetPartitionOptions()
	if first == nil || first.GetMaxPartitions() != 0 || first.GetPartitionSizeBytes() != 0 {
		t.Fatalf("PartitionOptions without options: %v, want present and zero", first)
	}
	second := reqs[1].Message.(*spannerpb.PartitionQueryRequest).GetPartitionOptions()
	if second.GetMaxPartitions() != 7 || second.GetPartitionSizeBytes() != 4096 {
		t.Fatalf("PartitionOptions with options: %v, want max 7, 4096 bytes", second)
	}
	for i, p := range plain.Partitions {
		tok := p.GetPartitionToken()
		if string(tok) != string(fakespanner.PartitionToken(partSQL, i)) {
			t.Fatalf("partition %d token %q", i, tok)
		}
		tok[0] ^= 0xff // a copy: the partition keeps its own
		if string(p.GetPartitionToken()) != string(fakespanner.PartitionToken(partSQL, i)) {
			t.Fatal("GetPartitionToken returned the partition's own slice")
		}
	}
}

// nextSet moves rows to its next result set or fails.
func nextSet(t *testing.T, rows *sql.Rows, what string) {
	t.Helper()
	if !rows.NextResultSet() {
		t.Fatalf("no %s result set: %v", what, rows.Err())
	}
}

// scanOne reads the one row of a metadata or stats result set into dest.
func scanOne(t *testing.T, rows *sql.Rows, col string, dest any) {
	t.Helper()
	if cols, _ := rows.Columns(); len(cols) != 1 || cols[0] != col {
		t.Fatalf("columns %v, want [%s]", cols, col)
	}
	if !rows.Next() {
		t.Fatalf("no %s row: %v", col, rows.Err())
	}
	if err := rows.Scan(dest); err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Fatalf("a second %s row", col)
	}
}

// TestFakeExecOptionsResultSets: ReturnResultSetMetadata and
// ReturnResultSetStats add go-sql-spanner's extra result sets, in its
// order (metadata, rows, stats) and with its Go types, for a query, a
// query with QueryOptions.Mode (sent as the request's query_mode), DML
// with THEN RETURN, plain DML, and in a string of several statements; the
// next query without them has one result set.
func TestFakeExecOptionsResultSets(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	const profiled = "SELECT s FROM profiled"
	rs := stringRows("x", "y", "z")
	rs.Stats = &spannerpb.ResultSetStats{
		QueryPlan:  &spannerpb.QueryPlan{PlanNodes: []*spannerpb.PlanNode{{Index: 0, DisplayName: "Scan"}}},
		QueryStats: &structpb.Struct{Fields: map[string]*structpb.Value{"elapsed_time": structpb.NewStringValue("1ms")}},
	}
	s.AddResult(profiled, &fakespanner.Result{ResultSet: rs, Split: fakespanner.SplitOptions{MaxValues: 1, SeparateStats: true}})
	const returning = "INSERT INTO t (s) VALUES ('a') THEN RETURN s"
	ret := stringRows("a")
	ret.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}
	s.AddResult(returning, &fakespanner.Result{ResultSet: ret})

	// Metadata, rows and stats of a profiled query; the rows are not
	// read to their end before moving on.
	rows, err := db.QueryContext(ctx, profiled, sfdriver.ExecOptions{
		ReturnResultSetMetadata: true, ReturnResultSetStats: true,
		QueryOptions: spanner.QueryOptions{Mode: spannerpb.ExecuteSqlRequest_PROFILE.Enum()},
	})
	if err != nil {
		t.Fatal(err)
	}
	var md *spannerpb.ResultSetMetadata
	scanOne(t, rows, "metadata", &md)
	if f := md.GetRowType().GetFields(); len(f) != 1 || f[0].GetName() != "s" || f[0].GetType().GetCode() != spannerpb.TypeCode_STRING {
		t.Fatalf("metadata %v", md)
	}
	nextSet(t, rows, "data")
	if cols, _ := rows.Columns(); len(cols) != 1 || cols[0] != "s" {
		t.Fatalf("data columns %v", cols)
	}
	var v string
	if !rows.Next() || rows.Scan(&v) != nil || v != "x" {
		t.Fatalf("first row %q: %v", v, rows.Err())
	}
	nextSet(t, rows, "stats")
	var st *spannerpb.ResultSetStats
	scanOne(t, rows, "stats", &st)
	if st.GetQueryPlan().GetPlanNodes()[0].GetDisplayName() != "Scan" || st.GetQueryStats().GetFields()["elapsed_time"].GetStringValue() != "1ms" || st.GetRowCount() != nil {
		t.Fatalf("stats %v", st)
	}
	if rows.NextResultSet() {
		t.Fatal("a fourth result set")
	}
	rows.Close()
	if m := s.RequestsFor("ExecuteStreamingSql")[0].ExecuteSQL().GetQueryMode(); m != spannerpb.ExecuteSqlRequest_PROFILE {
		t.Fatalf("query_mode %v, want PROFILE", m)
	}

	// THEN RETURN through QueryContext: rows, then the row count.
	rows, err = db.QueryContext(ctx, returning, &sfdriver.ExecOptions{ReturnResultSetStats: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := readStringsKeep(t, rows); len(got) != 1 || got[0] != "a" {
		t.Fatalf("THEN RETURN rows %v", got)
	}
	nextSet(t, rows, "stats")
	scanOne(t, rows, "stats", &st)
	if st.GetRowCountExact() != 1 {
		t.Fatalf("THEN RETURN stats %v", st)
	}
	rows.Close()

	// Plain DML in a transaction: metadata without columns, no rows, the
	// row count; a query without statistics gets empty (not nil) stats.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err = tx.QueryContext(ctx, txnUpdate+"; "+txnQuery, sfdriver.ExecOptions{ReturnResultSetMetadata: true, ReturnResultSetStats: true})
	if err != nil {
		t.Fatal(err)
	}
	scanOne(t, rows, "metadata", &md)
	if n := len(md.GetRowType().GetFields()); n != 0 {
		t.Fatalf("DML metadata has %d fields", n)
	}
	nextSet(t, rows, "DML data")
	if rows.Next() {
		t.Fatal("DML returned a row")
	}
	nextSet(t, rows, "DML stats")
	scanOne(t, rows, "stats", &st)
	if st.GetRowCountExact() != 3 {
		t.Fatalf("DML stats %v", st)
	}
	nextSet(t, rows, "query metadata")
	scanOne(t, rows, "metadata", &md)
	nextSet(t, rows, "query data")
	if got := readStringsKeep(t, rows); len(got) != 2 {
		t.Fatalf("query rows %v", got)
	}
	nextSet(t, rows, "query stats")
	st = nil
	scanOne(t, rows, "stats", &st)
	if st == nil || st.GetRowCount() != nil || st.GetQueryPlan() != nil {
		t.Fatalf("query stats %v, want empty", st)
	}
	if rows.NextResultSet() {
		t.Fatal("a seventh result set")
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// Without the options: one result set, and no query mode sent.
	s.ResetRequests()
	rows = mustQuery(t, db, profiled)
	readStringsKeep(t, rows)
	if rows.NextResultSet() {
		t.Fatal("a second result set without the options")
	}
	rows.Close()
	if m := s.RequestsFor("ExecuteStreamingSql")[0].ExecuteSQL().GetQueryMode(); m != spannerpb.ExecuteSqlRequest_NORMAL {
		t.Fatalf("query_mode %v on the next query", m)
	}
}

// readStringsKeep reads the current result set's strings without closing.
func readStringsKeep(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFakeExecOptionsDecodeProto: DecodeOptionProto returns every column
// as a spanner.GenericColumnValue (type and value as sent, NULL included)
// for that query only, in autocommit and in a transaction.
func TestFakeExecOptionsDecodeProto(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	const q = "SELECT i, a, n FROM mixed"
	arr := &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: typ(spannerpb.TypeCode_INT64)}
	s.AddResult(q, &fakespanner.Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "i", Type: typ(spannerpb.TypeCode_INT64)}, {Name: "a", Type: arr}, {Name: "n", Type: typ(spannerpb.TypeCode_STRING)},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{
			structpb.NewStringValue("42"),
			structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("1"), structpb.NewNullValue()}}),
			structpb.NewNullValue(),
		}}},
	}})
	check := func(q queryerCtx) {
		rows := mustQuery(t, q, "SELECT i, a, n FROM mixed", sfdriver.ExecOptions{DecodeOption: sfdriver.DecodeOptionProto})
		defer rows.Close()
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		var i, a, n spanner.GenericColumnValue
		if err := rows.Scan(&i, &a, &n); err != nil {
			t.Fatal(err)
		}
		var iv int64
		var av []spanner.NullInt64
		if err := i.Decode(&iv); err != nil || iv != 42 || i.Type.GetCode() != spannerpb.TypeCode_INT64 {
			t.Fatalf("i: %v %v", i, err)
		}
		if err := a.Decode(&av); err != nil || len(av) != 2 || av[0].Int64 != 1 || av[1].Valid {
			t.Fatalf("a: %v %v", a, err)
		}
		if _, null := n.Value.GetKind().(*structpb.Value_NullValue); !null || n.Type.GetCode() != spannerpb.TypeCode_STRING {
			t.Fatalf("n: %v", n)
		}
		if ct, _ := rows.ColumnTypes(); ct[1].ScanType() != reflect.TypeFor[spanner.GenericColumnValue]() {
			t.Fatalf("scan type %v", ct[1].ScanType())
		}
	}
	check(db)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var iv any
	if err := db.QueryRowContext(ctx, q).Scan(&iv, new(any), new(any)); err != nil {
		t.Fatal(err)
	}
	if _, ok := iv.(int64); !ok {
		t.Fatalf("next query: %T, want int64", iv)
	}
}

// TestFakeExecOptionsPropertyValues: PropertyValues set properties for
// their statement only, as SET spells them; a bad one fails the statement
// with SET's error before anything is sent.
func TestFakeExecOptionsPropertyValues(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	if _, err := db.ExecContext(ctx, txnUpdate, &sfdriver.ExecOptions{PropertyValues: []sfdriver.PropertyValue{
		sfdriver.CreatePropertyValue("statement_tag", "upd-tag"),
		sfdriver.CreatePropertyValue("rpc_priority", "low"),
	}}); err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, db, txnQuery, sfdriver.ExecOptions{PropertyValues: []sfdriver.PropertyValue{
		sfdriver.CreatePropertyValue("statement_tag", "q-tag"),
		sfdriver.CreatePropertyValue("RPC_PRIORITY", "medium"),
	}}))
	readStrings(t, mustQuery(t, db, txnQuery))
	upd := s.RequestsFor("ExecuteSql")[0].ExecuteSQL().GetRequestOptions()
	if upd.GetRequestTag() != "upd-tag" || upd.GetPriority() != spannerpb.RequestOptions_PRIORITY_LOW {
		t.Fatalf("update request options %v", upd)
	}
	qs := s.RequestsFor("ExecuteStreamingSql")
	if q := qs[0].ExecuteSQL().GetRequestOptions(); q.GetRequestTag() != "q-tag" || q.GetPriority() != spannerpb.RequestOptions_PRIORITY_MEDIUM {
		t.Fatalf("query request options %v", q)
	}
	if q := qs[1].ExecuteSQL().GetRequestOptions(); q != nil {
		t.Fatalf("the next query kept %v", q)
	}
	s.ResetRequests()
	for _, bad := range []sfdriver.PropertyValue{
		sfdriver.CreatePropertyValue("rpc_priority", "urgent"),
		sfdriver.CreatePropertyValue("no_such_property", "1"),
		{Identifier: sfdriver.Identifier{Parts: []string{"my_ext", "x"}}, Value: "1"},
	} {
		_, err := db.QueryContext(ctx, txnQuery, sfdriver.ExecOptions{PropertyValues: []sfdriver.PropertyValue{bad}})
		if c := status.Code(err); c != codes.InvalidArgument && c != codes.Unimplemented {
			t.Fatalf("%v: %v, want InvalidArgument or Unimplemented", bad, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("bad property values sent %d requests", n)
	}
}

// TestFakeSpannerNamedArg: a parameter whose name database/sql refuses
// (@__name) binds through SpannerNamedArg; the last of two arguments for
// it wins, and one value serves every use of the name.
func TestFakeSpannerNamedArg(t *testing.T) {
	s := fakespanner.Start(t)
	const ins = "INSERT INTO users (id, name) VALUES (@__name, @__name)"
	s.AddResult(ins, fakespanner.DML(1))
	db := openFake(t, s)
	if _, err := db.Exec(ins, sql.Named("p__name", sfdriver.SpannerNamedArg{NameInQuery: "__name", Value: "foo"}),
		sql.Named("p__name", &sfdriver.SpannerNamedArg{NameInQuery: "__name", Value: "bar"})); err != nil {
		t.Fatal(err)
	}
	req := s.RequestsFor("ExecuteSql")[0].ExecuteSQL()
	if f := req.GetParams().GetFields(); len(f) != 1 || f["__name"].GetStringValue() != "bar" {
		t.Fatalf("params %v types %v", req.GetParams(), req.GetParamTypes())
	}
}

// rawConn runs f on the spannerfast connection of c.
func rawConn(t *testing.T, c *sql.Conn, f func(sc sfdriver.SpannerConn) error) {
	t.Helper()
	if err := c.Raw(func(dc any) error { return f(dc.(sfdriver.SpannerConn)) }); err != nil {
		t.Fatal(err)
	}
}

// showVar reads SHOW VARIABLE name on c.
func showVar(t *testing.T, c *sql.Conn, name string) any {
	t.Helper()
	var v any
	if err := c.QueryRowContext(context.Background(), "SHOW VARIABLE "+name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFakeSpannerConnSetters: each SpannerConn setter does what SET does
// (SHOW VARIABLE sees it, the requests carry it, a bad value is SET's
// error), each getter reads what SET wrote, and the pool's reset undoes
// them.
func TestFakeSpannerConnSetters(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	delay := 20 * time.Millisecond
	dr := &spannerpb.DirectedReadOptions{Replicas: &spannerpb.DirectedReadOptions_IncludeReplicas_{
		IncludeReplicas: &spannerpb.DirectedReadOptions_IncludeReplicas{ReplicaSelections: []*spannerpb.DirectedReadOptions_ReplicaSelection{{Location: "us-east1"}}},
	}}
	rawConn(t, c, func(sc sfdriver.SpannerConn) error {
		return errors.Join(
			sc.SetAutoBatchDmlUpdateCount(7), sc.SetAutoBatchDmlUpdateCountVerification(false),
			sc.SetRetryAbortsInternally(false), sc.SetAutocommitDMLMode(sfdriver.PartitionedNonAtomic),
			sc.SetReadOnlyStaleness(spanner.ExactStaleness(10*time.Second)), sc.SetDirectedReadOptions(dr),
			sc.SetIsolationLevel(sql.LevelRepeatableRead), sc.SetReadLockMode(spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC),
			sc.SetTransactionTag("tx-tag"), sc.SetMaxCommitDelay(delay),
			sc.SetExcludeTxnFromChangeStreams(true), sc.SetDecodeToNativeArrays(true),
		)
	})
	for name, want := range map[string]any{
		"auto_batch_dml_update_count": int64(7), "auto_batch_dml_update_count_verification": false,
		"retry_aborts_internally": false, "read_only_staleness": "(exactStaleness: 10s)",
		"isolation_level": "Repeatable Read", "read_lock_mode": "OPTIMISTIC", "transaction_tag": "tx-tag",
		"max_commit_delay": "20ms", "exclude_txn_from_change_streams": true, "decode_to_native_arrays": true,
	} {
		if got := showVar(t, c, name); got != want {
			t.Errorf("SHOW VARIABLE %s = %v (%T), want %v (%T)", name, got, got, want, want)
		}
	}
	// The getters read what SET statements write.
	for _, stmt := range []string{"SET autocommit_dml_mode = 'TRANSACTIONAL'", "SET read_only_staleness = 'MAX_STALENESS 5s'", "SET transaction_tag = 'other'", "SET max_commit_delay = '30ms'"} {
		if _, err := c.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	setCode := setErrCode(t, c, "SET max_commit_delay = '-1ms'")
	rawConn(t, c, func(sc sfdriver.SpannerConn) error {
		for i, ok := range []bool{sc.AutocommitDMLMode() == sfdriver.Transactional, sc.ReadOnlyStaleness().String() == spanner.MaxStaleness(5*time.Second).String(),
			sc.TransactionTag() == "other", sc.MaxCommitDelay() == 30*time.Millisecond, sc.IsolationLevel() == sql.LevelRepeatableRead,
			sc.ReadLockMode() == spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC, sc.DecodeToNativeArrays(), !sc.RetryAbortsInternally(),
			sc.AutoBatchDmlUpdateCount() == 7, !sc.AutoBatchDmlUpdateCountVerification(), sc.ExcludeTxnFromChangeStreams(),
			proto.Equal(sc.DirectedReadOptions(), dr)} {
			if !ok {
				t.Errorf("getter %d disagrees with SET (max_commit_delay %v)", i, sc.MaxCommitDelay())
			}
		}
		if err := sc.SetIsolationLevel(sql.LevelLinearizable); status.Code(err) != codes.InvalidArgument {
			t.Errorf("SetIsolationLevel(Linearizable): %v, want InvalidArgument", err)
		}
		if err := sc.SetMaxCommitDelay(-time.Millisecond); err == nil || status.Code(err) != setCode {
			t.Errorf("SetMaxCommitDelay(-1ms): %v; SET fails with %v", err, setCode)
		}
		if _, err := sc.ReadOnlyTransactionTimestamp(); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("ReadOnlyTransactionTimestamp before any read: %v", err)
		}
		return nil
	})
	// The requests carry what the setters set: a read-write transaction
	// with the tag, isolation and lock mode; a query at the staleness.
	if _, err := c.ExecContext(ctx, "SET transaction_tag = 'tx-tag'"); err != nil {
		t.Fatal(err)
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	e := s.RequestsFor("ExecuteSql")[0].ExecuteSQL()
	rw := e.GetTransaction().GetBegin()
	if e.GetRequestOptions().GetTransactionTag() != "tx-tag" || rw.GetIsolationLevel() != spannerpb.TransactionOptions_REPEATABLE_READ ||
		rw.GetReadWrite().GetReadLockMode() != spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC || !rw.GetExcludeTxnFromChangeStreams() {
		t.Fatalf("transaction sent %v", e)
	}
	readStrings(t, mustQuery(t, c, txnQuery))
	q := s.RequestsFor("ExecuteStreamingSql")
	if ro := q[len(q)-1].ExecuteSQL().GetTransaction().GetSingleUse().GetReadOnly(); ro.GetMaxStaleness().AsDuration() != 5*time.Second {
		t.Fatalf("query bound %v", ro)
	}
	rawConn(t, c, func(sc sfdriver.SpannerConn) error {
		_, err := sc.ReadOnlyTransactionTimestamp()
		return err
	})
	c.Close()
	// Back in the pool: the next user sees the DSN's values.
	c2, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	rawConn(t, c2, func(sc sfdriver.SpannerConn) error {
		if sc.TransactionTag() != "" || sc.IsolationLevel() != sql.LevelDefault || !sc.RetryAbortsInternally() {
			t.Errorf("settings outlived the connection's user")
		}
		return nil
	})
}

// setErrCode is the code SET stmt fails with on c.
func setErrCode(t *testing.T, c *sql.Conn, stmt string) codes.Code {
	t.Helper()
	_, err := c.ExecContext(context.Background(), stmt)
	return status.Code(err)
}

// TestFakeUnderlyingClient: one official client per connector, made on
// the first call, on the connector's channel: it reads from the same
// server; closing the database closes it.
func TestFakeUnderlyingClient(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx := context.Background()
	s, db := startTxnFake(t)
	var clients [2]*spanner.Client
	for i := range clients {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rawConn(t, c, func(sc sfdriver.SpannerConn) error {
			var err error
			clients[i], err = sc.UnderlyingClient()
			return err
		})
		c.Close()
	}
	if clients[0] == nil || clients[0] != clients[1] {
		t.Fatalf("clients %p and %p, want one", clients[0], clients[1])
	}
	it := clients[0].Single().Query(ctx, spanner.Statement{SQL: txnQuery})
	var got []string
	if err := it.Do(func(r *spanner.Row) error {
		var v string
		err := r.Column(0, &v)
		got = append(got, v)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "a" {
		t.Fatalf("official client read %v", got)
	}
	if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 1 {
		t.Fatalf("%d streaming queries on the server, want 1", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	err := clients[0].Single().Query(ctx, spanner.Statement{SQL: txnQuery}).Do(func(*spanner.Row) error { return nil })
	if err == nil {
		t.Fatal("the official client still works after db.Close")
	}
	s.Close()
	// The official client may probe the GCE metadata server over HTTP on
	// its own (a keep-alive connection of net/http's default transport).
	goleak.VerifyNone(t, ignore, goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"))
}

// TestFakeExecuteBatchDml: the statements the function adds go in one
// ExecuteBatchDml request with their counts; an error from the function
// drops the batch and sends nothing; the connection goes back to the pool
// (one connection: the next statement runs); OnConn puts the batch in the
// connection's transaction.
func TestFakeExecuteBatchDml(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	db.SetMaxOpenConns(1)
	res, err := sfdriver.ExecuteBatchDml(ctx, db, func(ctx context.Context, b sfdriver.DmlBatch) error {
		if err := b.ExecContext(ctx, txnUpdate); err != nil {
			return err
		}
		return b.ExecContext(ctx, txnInsert)
	})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := res.BatchRowsAffected()
	if err != nil || len(counts) != 2 || counts[0] != 3 || counts[1] != 1 {
		t.Fatalf("counts %v, %v; want [3 1]", counts, err)
	}
	if n, _ := res.RowsAffected(); n != 4 {
		t.Fatalf("RowsAffected %d, want 4", n)
	}
	reqs := s.RequestsFor("ExecuteBatchDml")
	if len(reqs) != 1 || len(reqs[0].Message.(*spannerpb.ExecuteBatchDmlRequest).GetStatements()) != 2 || len(s.RequestsFor("ExecuteSql")) != 0 {
		t.Fatalf("%d ExecuteBatchDml, %d ExecuteSql; want one batch of 2", len(reqs), len(s.RequestsFor("ExecuteSql")))
	}
	s.ResetRequests()
	stop := errors.New("changed my mind")
	if _, err := sfdriver.ExecuteBatchDml(ctx, db, func(ctx context.Context, b sfdriver.DmlBatch) error {
		if err := b.ExecContext(ctx, txnUpdate); err != nil {
			return err
		}
		return stop
	}); !errors.Is(err, stop) {
		t.Fatalf("err %v, want the function's", err)
	}
	if n := len(s.RequestsFor("ExecuteBatchDml")) + len(s.RequestsFor("ExecuteSql")); n != 0 {
		t.Fatalf("an aborted batch sent %d requests", n)
	}
	readStrings(t, mustQuery(t, db, txnQuery)) // the one connection is free

	c, tx := connTx(t, ctx, db)
	if _, err := sfdriver.ExecuteBatchDmlOnConn(ctx, c, func(ctx context.Context, b sfdriver.DmlBatch) error {
		return b.ExecContext(ctx, txnInsert)
	}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	batch := s.RequestsFor("ExecuteBatchDml")[0].Message.(*spannerpb.ExecuteBatchDmlRequest)
	if batch.GetTransaction().GetBegin().GetReadWrite() == nil || len(s.RequestsFor("Commit")) != 1 {
		t.Fatalf("batch on the connection's transaction: %v", batch.GetTransaction())
	}
}

// TestFakeCreateConnector: go-sql-spanner's ConnectorConfig builds a
// working connector; its fields, Params and what the Configurator sets
// with a property of the same meaning reach the requests; what cannot be
// applied is refused, naming it.
func TestFakeCreateConnector(t *testing.T) {
	ctx := context.Background()
	s, _ := startTxnFake(t)
	base := sfdriver.ConnectorConfig{
		Host: s.Addr(), Project: "p", Instance: "i", Database: "d",
		Params:         map[string]string{"use_plain_text": "true", "rpc_priority": "HIGH"},
		IsolationLevel: sql.LevelRepeatableRead,
		Configurator: func(c *spanner.ClientConfig, _ *[]option.ClientOption) {
			c.QueryOptions.Options = &spannerpb.ExecuteSqlRequest_QueryOptions{OptimizerVersion: "5"}
			c.DatabaseRole = "reader"
		},
	}
	conn, err := sfdriver.CreateConnector(base)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, txnQuery))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	q := s.RequestsFor("ExecuteStreamingSql")[0].ExecuteSQL()
	if q.GetSession() == "" || !strings.HasPrefix(q.GetSession(), "projects/p/instances/i/databases/d/") ||
		q.GetQueryOptions().GetOptimizerVersion() != "5" || q.GetRequestOptions().GetPriority() != spannerpb.RequestOptions_PRIORITY_HIGH ||
		q.GetTransaction().GetBegin().GetIsolationLevel() != spannerpb.TransactionOptions_REPEATABLE_READ {
		t.Fatalf("query sent %v", q)
	}
	if cs := s.RequestsFor("CreateSession"); len(cs) == 0 || cs[0].Message.(*spannerpb.CreateSessionRequest).GetSession().GetCreatorRole() != "reader" {
		t.Fatalf("CreateSession did not carry the database role: %v", cs)
	}
	for name, cc := range map[string]sfdriver.ConnectorConfig{
		"client option": {Project: "p", Instance: "i", Database: "d", Configurator: func(_ *spanner.ClientConfig, o *[]option.ClientOption) {
			*o = append(*o, option.WithUserAgent("x"))
		}},
		"unmapped field": {Project: "p", Instance: "i", Database: "d", Configurator: func(c *spanner.ClientConfig, _ *[]option.ClientOption) {
			c.Compression = "gzip"
		}},
	} {
		if _, err := sfdriver.CreateConnector(cc); status.Code(err) != codes.Unimplemented || (name == "unmapped field" && !strings.Contains(err.Error(), "Compression")) {
			t.Errorf("%s: %v, want Unimplemented naming it", name, err)
		}
	}
	if _, err := sfdriver.CreateConnector(sfdriver.ConnectorConfig{Project: "p", Instance: "i", Database: "d", Params: map[string]string{"no_such_key": "1"}}); err == nil {
		t.Error("an unknown property in Params was accepted")
	}
	if _, err := sfdriver.CreateConnector(sfdriver.ConnectorConfig{Project: "p"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("no database: %v", err)
	}
}
