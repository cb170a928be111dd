package e2e

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// roundTrip is one operation of TestFakeRoundTrips: what it runs, the RPCs
// spannerfast must make for it, in order, and how many go-sql-spanner
// makes for it (compat/roundtrips/RESULTS.md, the same row).
type roundTrip struct {
	name string
	// script prepares the server for one run (a fault, say).
	script func(s *fakespanner.Server)
	run    func(t *testing.T, c *sql.Conn, pg bool)
	want   []string
	gss    int
}

const (
	rtQuery   = "SELECT 1"
	rtUpdate  = "UPDATE FOO SET BAR=1 WHERE BAZ=2"
	rtParts   = "SELECT id FROM parts"
	rtUpdate1 = "UPDATE FOO SET BAR=1 WHERE BAZ=1" // one row
	rtFailing = "UPDATE FOO SET BAR=2 WHERE BAZ=3"
)

// rtReturning is an UPDATE that returns a column, in the dialect.
func rtReturning(pg bool) string {
	if pg {
		return rtUpdate + " RETURNING bar"
	}
	return rtUpdate + " THEN RETURN BAR"
}

// rtDDL is a CREATE TABLE in the dialect.
func rtDDL(pg bool, table string) string {
	if pg {
		return "CREATE TABLE " + table + " (id bigint primary key)"
	}
	return "CREATE TABLE " + table + " (id INT64) PRIMARY KEY (id)"
}

// rtTxn runs body in a transaction on c and commits it.
func rtTxn(t *testing.T, c *sql.Conn, ro bool, body func(tx *sql.Tx)) {
	t.Helper()
	tx, err := c.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: ro})
	if err != nil {
		t.Fatal(err)
	}
	body(tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func rtMutations() []*spanner.Mutation {
	return []*spanner.Mutation{spanner.Insert("FOO", []string{"ID"}, []any{int64(1)})}
}

// roundTrips are the operations and their calls. The go-sql-spanner counts
// are those of compat/roundtrips/RESULTS.md (go-sql-spanner 28b0df2 on its
// own mock server, both dialects alike): spannerfast makes the same number
// of calls for every operation there. Where the method differs, it is
// ExecuteSql for a DML statement (go-sql-spanner streams it) and
// ExecuteStreamingSql for partitioned DML (go-sql-spanner's client sends
// ExecuteSql).
func roundTrips() []roundTrip {
	ctx := context.Background()
	query := func(t *testing.T, q queryerCtx) { scanInt64s(t, mustQuery(t, q, rtQuery)) }
	return []roundTrip{
		{name: "point query", gss: 1, want: []string{"ExecuteStreamingSql"},
			run: func(t *testing.T, c *sql.Conn, _ bool) { query(t, c) }},
		{name: "autocommit DML", gss: 2, want: []string{"ExecuteSql", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) { mustExec(t, c, rtUpdate) }},
		{name: "autocommit DML with THEN RETURN / RETURNING", gss: 2, want: []string{"ExecuteStreamingSql", "Commit"},
			run: func(t *testing.T, c *sql.Conn, pg bool) { scanInt64s(t, mustQuery(t, c, rtReturning(pg))) }},
		{name: "read-write: query, DML, commit", gss: 3, want: []string{"ExecuteStreamingSql", "ExecuteSql", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(tx *sql.Tx) { query(t, tx); mustExec(t, tx, rtUpdate) })
			}},
		{name: "read-write: DML, commit", gss: 2, want: []string{"ExecuteSql", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(tx *sql.Tx) { mustExec(t, tx, rtUpdate) })
			}},
		{name: "read-write: two DML, commit", gss: 3, want: []string{"ExecuteSql", "ExecuteSql", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(tx *sql.Tx) { mustExec(t, tx, rtUpdate); mustExec(t, tx, rtUpdate) })
			}},
		{name: "read-write: BufferWrite, commit", gss: 2, want: []string{"BeginTransaction", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(*sql.Tx) {
					if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error { return sc.BufferWrite(rtMutations()) }); err != nil {
						t.Fatal(err)
					}
				})
			}},
		{name: "read-write: query, BufferWrite, commit", gss: 2, want: []string{"ExecuteStreamingSql", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(tx *sql.Tx) {
					query(t, tx)
					if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error { return sc.BufferWrite(rtMutations()) }); err != nil {
						t.Fatal(err)
					}
				})
			}},
		{name: "read-write: empty commit", gss: 0, want: nil,
			run: func(t *testing.T, c *sql.Conn, _ bool) { rtTxn(t, c, false, func(*sql.Tx) {}) }},
		{name: "read-write: DML, rollback", gss: 2, want: []string{"ExecuteSql", "Rollback"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				tx, err := c.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				mustExec(t, tx, rtUpdate)
				if err := tx.Rollback(); err != nil {
					t.Fatal(err)
				}
			}},
		// The failed statement began the transaction inline, so it
		// begins explicitly and runs the statement again in it.
		{name: "read-write: failing DML, DML, commit", gss: 5,
			want: []string{"ExecuteSql", "BeginTransaction", "ExecuteSql", "ExecuteSql", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(tx *sql.Tx) {
					if _, err := tx.ExecContext(ctx, rtFailing); status.Code(err) != codes.AlreadyExists {
						t.Fatalf("failing DML: %v, want AlreadyExists", err)
					}
					mustExec(t, tx, rtUpdate)
				})
			}},
		{name: "read-write: DML, commit aborted once", gss: 5,
			want: []string{"ExecuteSql", "Commit", "BeginTransaction", "ExecuteSql", "Commit"},
			script: func(s *fakespanner.Server) {
				s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
			},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(tx *sql.Tx) { mustExec(t, tx, rtUpdate) })
			}},
		{name: "read-write with auto_batch_dml: two DML, commit", gss: 2, want: []string{"ExecuteBatchDml", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				mustExec(t, c, "SET AUTO_BATCH_DML = true")
				rtTxn(t, c, false, func(tx *sql.Tx) { mustExec(t, tx, rtUpdate1); mustExec(t, tx, rtUpdate1) })
				mustExec(t, c, "SET AUTO_BATCH_DML = false")
			}},
		{name: "read-only: two queries, commit", gss: 2, want: []string{"ExecuteStreamingSql", "ExecuteStreamingSql"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, true, func(tx *sql.Tx) { query(t, tx); query(t, tx) })
			}},
		{name: "START BATCH DML, two DML, RUN BATCH", gss: 2, want: []string{"ExecuteBatchDml", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				for _, q := range []string{"START BATCH DML", rtUpdate, rtUpdate, "RUN BATCH"} {
					mustExec(t, c, q)
				}
			}},
		{name: "ExecuteBatchDmlOnConn, two DML", gss: 2, want: []string{"ExecuteBatchDml", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				_, err := sfdriver.ExecuteBatchDmlOnConn(ctx, c, func(ctx context.Context, b sfdriver.DmlBatch) error {
					if err := b.ExecContext(ctx, rtUpdate); err != nil {
						return err
					}
					return b.ExecContext(ctx, rtUpdate)
				})
				if err != nil {
					t.Fatal(err)
				}
			}},
		{name: "read-write: DML batch, commit", gss: 2, want: []string{"ExecuteBatchDml", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				rtTxn(t, c, false, func(tx *sql.Tx) {
					for _, q := range []string{"START BATCH DML", rtUpdate, rtUpdate, "RUN BATCH"} {
						mustExec(t, tx, q)
					}
				})
			}},
		{name: "Apply", gss: 2, want: []string{"BeginTransaction", "Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error { _, err := sc.Apply(ctx, rtMutations()); return err }); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "Apply at least once", gss: 1, want: []string{"Commit"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error {
					_, err := sc.Apply(ctx, rtMutations(), spanner.ApplyAtLeastOnce())
					return err
				}); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "partitioned query, three partitions", gss: 5,
			want: []string{"BeginTransaction", "PartitionQuery", "ExecuteStreamingSql", "ExecuteStreamingSql", "ExecuteStreamingSql"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				auto := sfdriver.ExecOptions{PartitionedQueryOptions: sfdriver.PartitionedQueryOptions{AutoPartitionQuery: true}}
				if got := scanInt64s(t, mustQuery(t, c, rtParts, auto)); len(got) != 3 {
					t.Fatalf("partitioned query read %v, want 3 rows", got)
				}
			}},
		{name: "partitioned DML", gss: 2, want: []string{"BeginTransaction", "ExecuteStreamingSql"},
			run: func(t *testing.T, c *sql.Conn, _ bool) {
				// Setting the mode makes no call.
				mustExec(t, c, "SET AUTOCOMMIT_DML_MODE = 'PARTITIONED_NON_ATOMIC'")
				mustExec(t, c, rtUpdate)
				mustExec(t, c, "SET AUTOCOMMIT_DML_MODE = 'TRANSACTIONAL'")
			}},
		{name: "DDL", gss: 2, want: []string{"UpdateDatabaseDdl", "GetOperation"},
			run: func(t *testing.T, c *sql.Conn, pg bool) { mustExec(t, c, rtDDL(pg, "t1")) }},
		{name: "START BATCH DDL, two statements, RUN BATCH", gss: 2, want: []string{"UpdateDatabaseDdl", "GetOperation"},
			run: func(t *testing.T, c *sql.Conn, pg bool) {
				for _, q := range []string{"START BATCH DDL", rtDDL(pg, "t2"), rtDDL(pg, "t3"), "RUN BATCH"} {
					mustExec(t, c, q)
				}
			}},
	}
}

// settledMethods returns the methods of the requests the server received
// once none has come for 20ms, so that a call the driver makes after the
// operation returned (a rollback in the background, say) counts too.
func settledMethods(s *fakespanner.Server) []string {
	for n := -1; ; {
		reqs := s.Requests()
		if len(reqs) == n {
			got := make([]string, n)
			for i, r := range reqs {
				got[i] = r.Method
			}
			return got
		}
		n = len(reqs)
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFakeRoundTrips: connecting and the first query make 3 calls, and
// then, on the warmed connection (session made, dialect known), each
// operation makes exactly the RPCs listed, in order, and never more than
// go-sql-spanner makes for it (compat/roundtrips/RESULTS.md), in both
// dialects. docs/performance.md#round-trips has the table.
func TestFakeRoundTrips(t *testing.T) {
	for _, dialect := range []string{"GOOGLE_STANDARD_SQL", "POSTGRESQL"} {
		t.Run(dialect, func(t *testing.T) {
			pg := dialect == "POSTGRESQL"
			s := fakespanner.Start(t)
			s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult(dialect))
			s.AddResult(rtUpdate, fakespanner.DML(5))
			s.AddResult(rtUpdate1, fakespanner.DML(1))
			failing := fakespanner.DML(0)
			failing.Faults = []fakespanner.Fault{{Err: status.Error(codes.AlreadyExists, "row exists"), Times: -1}}
			s.AddResult(rtFailing, failing)
			returned := int64Rows(1)
			returned.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}
			s.AddResult(rtReturning(pg), &fakespanner.Result{ResultSet: returned})
			parts := make([]*fakespanner.Result, 3)
			for i := range parts {
				parts[i] = &fakespanner.Result{ResultSet: int64Rows(int64(i))}
			}
			s.AddPartitions(rtParts, parts...)
			c := dbConn(t, openFake(t, s))
			// Cold: connecting and the first query make the session, ask
			// the dialect (a query the fake keeps out of Requests) and
			// run the query: 3 calls, as go-sql-spanner's.
			scanInt64s(t, mustQuery(t, c, rtQuery))
			if got, want := settledMethods(s), []string{"CreateSession", "ExecuteStreamingSql"}; !slices.Equal(got, want) || s.DialectQueries() != 1 {
				t.Fatalf("cold: RPCs %v and %d dialect queries, want %v and 1 (go-sql-spanner: 3 in all)", got, s.DialectQueries(), want)
			}
			for _, rt := range roundTrips() {
				if len(rt.want) > rt.gss {
					t.Fatalf("%s: the table wants %d RPCs, more than go-sql-spanner's %d", rt.name, len(rt.want), rt.gss)
				}
				if rt.script != nil {
					rt.script(s)
				}
				s.ResetRequests()
				rt.run(t, c, pg)
				if got := settledMethods(s); !slices.Equal(got, rt.want) {
					t.Errorf("%s: %d RPCs %v, want %d %v (go-sql-spanner: %d)", rt.name, len(got), got, len(rt.want), rt.want, rt.gss)
				}
			}
		})
	}
}
