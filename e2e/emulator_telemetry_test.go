package e2e

import (
	"testing"

	"go.opentelemetry.io/otel/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// TestEmulatorTelemetryTransaction: on the emulator, a read-write
// transaction is one span from BeginTx to Commit, child of the
// application's span, with its DML, query and commit as children; the
// query's span counts its rows; a statement the emulator refuses has a
// span with error status and the gRPC code of the error returned.
func TestEmulatorTelemetryTransaction(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, emulatortest.WithDDL(emuSingersDDL...))
	o := openObservedDSN(t, edb.DSN())
	actx, app := o.rootIn(ctx)
	tx, err := o.db.BeginTx(actx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "INSERT INTO Singers (SingerId, Name) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	rows, err := tx.QueryContext(ctx, "SELECT Name FROM Singers ORDER BY SingerId")
	if err != nil {
		t.Fatal(err)
	}
	if got := readStrings(t, rows); len(got) != 3 {
		t.Fatalf("rows %v", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	_, queryErr := o.db.QueryContext(actx, "SELECT * FROM NoSuchTable")
	if queryErr == nil {
		t.Fatal("a query of a missing table succeeded")
	}
	app.End()

	txs := o.spansNamed("ReadWriteTransaction")
	if len(txs) != 1 {
		t.Fatalf("%d ReadWriteTransaction spans, want 1", len(txs))
	}
	txSpan := txs[0]
	if txSpan.Parent().SpanID() != app.SpanContext().SpanID() {
		t.Error("the transaction's span is not a child of the application's span")
	}
	children := map[string]int{}
	for _, s := range o.spans.Ended() {
		if childOf(s, txSpan) {
			children[s.Name()]++
		}
	}
	for _, name := range []string{"Update", "Query", "Commit"} {
		if children["cloud.google.com/go/spanner."+name] != 1 {
			t.Errorf("transaction's children %v, want one %s", children, name)
		}
	}
	var failed, read bool
	for _, q := range o.spansNamed("Query") {
		switch attr(q, "db.query.text").AsString() {
		case "SELECT Name FROM Singers ORDER BY SingerId":
			read = attr(q, "db.response.returned_rows").AsInt64() == 3 && q.Status().Code != codes.Error
		case "SELECT * FROM NoSuchTable":
			failed = q.Status().Code == codes.Error && attr(q, "error.type").AsString() == status.Code(queryErr).String() &&
				attr(q, "rpc.grpc.status_code").AsInt64() == int64(status.Code(queryErr)) &&
				q.Parent().SpanID() == app.SpanContext().SpanID()
		}
	}
	if !read {
		t.Error("no Query span of the transaction's query with its 3 rows")
	}
	if !failed {
		t.Errorf("no Query span of the failed query with status Error and code %v under the application's span", status.Code(queryErr))
	}
}
