package e2e

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// Work the driver runs again whole after an abort, on the scripted fake
// server: the spans it makes and where the "abort" events go
// (docs/observability.md#retries-aborts-and-replays).

// abortEvents returns the actions of the "abort" events on the ended span
// called name (the application's span: "app"), in order, per span.
func abortEvents(o *observed, name string) [][]string {
	var out [][]string
	for _, sp := range o.spans.Ended() {
		if sp.Name() != name {
			continue
		}
		var actions []string
		for _, e := range sp.Events() {
			if e.Name == "abort" {
				a, _ := attrMap(e.Attributes)["spanner.abort.action"].(string)
				actions = append(actions, a)
			}
		}
		out = append(out, actions)
	}
	return out
}

// TestFakeRetriedWholeSpans: partitioned DML aborted once is one
// PartitionedUpdate span (no Query span) with the abort on it; Apply at
// least once aborted once is an Apply span with two Commit children and
// the abort on it; RunTransaction whose commit is aborted once has two
// transaction spans, the abort returned on the first, its retry on the
// application's span.
func TestFakeRetriedWholeSpans(t *testing.T) {
	aborted := fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)}

	t.Run("partitioned DML", func(t *testing.T) {
		s, _ := startTxnFake(t)
		o := openObserved(t, s)
		s.AddMethodFault("ExecuteStreamingSql", aborted)
		ctx, app := o.root()
		n := emuExec(t, ctx, o.db, txnUpdate, sfdriver.ExecOptions{AutocommitDMLMode: sfdriver.PartitionedNonAtomic})
		app.End()
		pu := o.spansNamed("PartitionedUpdate")
		if n != 3 || len(pu) != 1 {
			t.Fatalf("%d rows; spans %v, want one PartitionedUpdate", n, spanNames(o.spans.Ended()))
		}
		for _, q := range o.spansNamed("Query") {
			if attr(q, "db.query.text").AsString() == txnUpdate {
				t.Error("partitioned DML made a Query span too")
			}
		}
		if pu[0].Parent().SpanID() != app.SpanContext().SpanID() || attr(pu[0], "spanner.rows_affected").AsInt64() != 3 {
			t.Errorf("PartitionedUpdate span: %v", pu[0].Attributes())
		}
		if got := abortEvents(o, "cloud.google.com/go/spanner.PartitionedUpdate"); len(got) != 1 || len(got[0]) != 1 || got[0][0] != "retry" {
			t.Errorf("abort events on the PartitionedUpdate span %v, want one retry", got)
		}
	})

	t.Run("Apply at least once", func(t *testing.T) {
		s, _ := startTxnFake(t)
		o := openObserved(t, s)
		c := dbConn(t, o.db)
		s.AddMethodFault("Commit", aborted)
		ctx, app := o.root()
		err := c.Raw(func(dc any) error {
			_, err := dc.(sfdriver.SpannerConn).Apply(ctx, []*spanner.Mutation{spanner.Insert("t", []string{"s"}, []any{"x"})}, spanner.ApplyAtLeastOnce())
			return err
		})
		app.End()
		if err != nil {
			t.Fatal(err)
		}
		apply := o.spansNamed("Apply")
		if len(apply) != 1 || apply[0].Parent().SpanID() != app.SpanContext().SpanID() {
			t.Fatalf("spans %v, want one Apply under the application's", spanNames(o.spans.Ended()))
		}
		commits := 0
		for _, sp := range o.spansNamed("Commit") {
			if childOf(sp, apply[0]) {
				commits++
			}
		}
		if commits != 2 {
			t.Errorf("%d Commit spans under Apply, want 2", commits)
		}
		if got := abortEvents(o, "cloud.google.com/go/spanner.Apply"); len(got) != 1 || len(got[0]) != 1 || got[0][0] != "retry" {
			t.Errorf("abort events on the Apply span %v, want one retry", got)
		}
	})

	t.Run("RunTransaction", func(t *testing.T) {
		s, _ := startTxnFake(t)
		o := openObserved(t, s)
		s.AddMethodFault("Commit", aborted)
		ctx, app := o.root()
		attempts := 0
		err := sfdriver.RunTransaction(ctx, o.db, nil, func(ctx context.Context, tx *sql.Tx) error {
			attempts++
			_, err := tx.ExecContext(ctx, txnUpdate)
			return err
		})
		app.End()
		if err != nil || attempts != 2 {
			t.Fatalf("RunTransaction = %v after %d attempts, want success after 2", err, attempts)
		}
		if got := abortEvents(o, "cloud.google.com/go/spanner.ReadWriteTransaction"); len(got) != 2 || len(got[0])+len(got[1]) != 1 {
			t.Errorf("abort events on the transactions' spans %v, want one (return) on the first", got)
		}
		if got := abortEvents(o, "app"); len(got) != 1 || len(got[0]) != 1 || got[0][0] != "retry" {
			t.Errorf("abort events on the application's span %v, want one retry", got)
		}
		checkReports(t, o, "abort", slog.LevelInfo,
			map[string]any{"spanner.attempt": int64(1), "spanner.abort.action": "return"},
			map[string]any{"spanner.attempt": int64(1), "spanner.abort.action": "retry"})
	})
}

// TestFakeMetricsRunTransactionAbortCountedOnce: RunTransaction whose
// commit Spanner aborts once counts one abort (action return, by the
// attempt's transaction), not a second one for its retry, which is only
// described (TestFakeRetriedWholeSpans).
func TestFakeMetricsRunTransactionAbortCountedOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := startTxnFake(t)
	db, reader := meteredDB(t, fakeDSN(s))
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Microsecond)})
	attempts := 0
	if err := sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		attempts++
		_, err := tx.ExecContext(ctx, txnUpdate)
		return err
	}); err != nil || attempts != 2 {
		t.Fatalf("RunTransaction = %v after %d attempts, want success after 2", err, attempts)
	}
	m := settled(t, s, reader)
	if all, ret := m.total(telemetry.MetricAborts), m.total(telemetry.MetricAborts, telemetry.KeyAbortAction.String(telemetry.AbortReturn)); all != 1 || ret != 1 {
		t.Errorf("%s = %d (return: %d), want 1 (return)", telemetry.MetricAborts, all, ret)
	}
}
