package e2e

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Request options on the requests they belong to: every option x every
// request kind, asserting the exact fields the fake server received.

const (
	optQuery  = "SELECT 1"
	optUpdate = "UPDATE T SET a = 1 WHERE true"
	optPart   = "SELECT a FROM T"
)

// optKind is one kind of request: how to make it, and which recorded
// request carries the options.
type optKind struct {
	name   string
	method string
	run    func(ctx context.Context, c *sql.Conn) error
}

func optKinds() []optKind {
	query := func(ctx context.Context, q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}, sqlText string) error {
		rows, err := q.QueryContext(ctx, sqlText)
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		rows.Close()
		return rows.Err()
	}
	inTx := func(ro bool, sqlText string) func(context.Context, *sql.Conn) error {
		return func(ctx context.Context, c *sql.Conn) error {
			tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: ro})
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if err := query(ctx, tx, sqlText); err != nil {
				return err
			}
			return tx.Commit()
		}
	}
	exec := func(stmts ...string) func(context.Context, *sql.Conn) error {
		return func(ctx context.Context, c *sql.Conn) error {
			for _, s := range stmts {
				if _, err := c.ExecContext(ctx, s); err != nil {
					c.ExecContext(ctx, "ABORT BATCH")
					return err
				}
			}
			return nil
		}
	}
	return []optKind{
		{"autocommit query", "ExecuteStreamingSql", func(ctx context.Context, c *sql.Conn) error { return query(ctx, c, optQuery) }},
		{"read-only txn query", "ExecuteStreamingSql", inTx(true, optQuery)},
		{"read-write query", "ExecuteStreamingSql", inTx(false, optQuery)},
		{"DML", "ExecuteSql", exec(optUpdate)},
		{"batch DML", "ExecuteBatchDml", exec("START BATCH DML", optUpdate, optUpdate, "RUN BATCH")},
		{"commit", "Commit", exec(optUpdate)},
		{"partitioned query", "ExecuteStreamingSql", func(ctx context.Context, c *sql.Conn) error {
			return query(ctx, c, "RUN PARTITIONED QUERY "+optPart)
		}},
	}
}

type withRequestOptions interface {
	GetRequestOptions() *spannerpb.RequestOptions
}

func reqOpts(r fakespanner.Request) *spannerpb.RequestOptions {
	if m, ok := r.Message.(withRequestOptions); ok {
		return m.GetRequestOptions()
	}
	return nil
}

const directedJSON = `{"includeReplicas":{"replicaSelections":[{"location":"us-east1","type":"READ_ONLY"}],"autoFailoverDisabled":true}}`

// TestFakeRequestOptionsTable: for each option, the request kinds that must
// carry it carry it exactly and the others do not (directed reads go with
// read-only work only; read-write work runs without them).
func TestFakeRequestOptionsTable(t *testing.T) {
	wantDirected := new(spannerpb.DirectedReadOptions)
	if err := protojson.Unmarshal([]byte(directedJSON), wantDirected); err != nil {
		t.Fatal(err)
	}
	sqlKinds := []string{"autocommit query", "read-only txn query", "read-write query", "DML", "batch DML", "partitioned query"}
	execSQL := []string{"autocommit query", "read-only txn query", "read-write query", "DML", "partitioned query"}
	for _, o := range []struct {
		set     string
		on      []string // kinds whose request carries the option
		refused []string // kinds refused while it is set
		has     func(r fakespanner.Request) bool
	}{
		{"SET statement_tag = 'st'", sqlKinds, nil,
			func(r fakespanner.Request) bool { return reqOpts(r).GetRequestTag() == "st" }},
		{"SET transaction_tag = 'tt'", []string{"read-write query", "DML", "batch DML", "commit"}, nil,
			func(r fakespanner.Request) bool { return reqOpts(r).GetTransactionTag() == "tt" }},
		{"SET rpc_priority = 'LOW'", sqlKinds, nil,
			func(r fakespanner.Request) bool {
				return reqOpts(r).GetPriority() == spannerpb.RequestOptions_PRIORITY_LOW
			}},
		{"SET commit_priority = 'HIGH'", []string{"commit"}, nil,
			func(r fakespanner.Request) bool {
				return reqOpts(r).GetPriority() == spannerpb.RequestOptions_PRIORITY_HIGH
			}},
		{"SET optimizer_version = '3'", execSQL, nil,
			func(r fakespanner.Request) bool { return r.ExecuteSQL().GetQueryOptions().GetOptimizerVersion() == "3" }},
		{"SET optimizer_statistics_package = 'pkg'", execSQL, nil,
			func(r fakespanner.Request) bool {
				return r.ExecuteSQL().GetQueryOptions().GetOptimizerStatisticsPackage() == "pkg"
			}},
		{"SET statement_timeout = '7s'", []string{"autocommit query", "read-only txn query", "read-write query", "DML", "commit", "partitioned query"}, nil,
			func(r fakespanner.Request) bool {
				left := time.Until(r.Deadline)
				return !r.Deadline.IsZero() && left > 5*time.Second && left <= 7*time.Second
			}},
		{"SET max_commit_delay = '100ms'", []string{"commit"}, nil,
			func(r fakespanner.Request) bool {
				c, ok := r.Message.(*spannerpb.CommitRequest)
				return ok && c.GetMaxCommitDelay().AsDuration() == 100*time.Millisecond
			}},
		// Read-write work runs without it, as in go-sql-spanner.
		{"SET directed_read = '" + directedJSON + "'", []string{"autocommit query", "read-only txn query", "partitioned query"}, nil,
			func(r fakespanner.Request) bool {
				return proto.Equal(r.ExecuteSQL().GetDirectedReadOptions(), wantDirected)
			}},
		{"SET data_boost_enabled = true", []string{"partitioned query"}, nil,
			func(r fakespanner.Request) bool { return r.ExecuteSQL().GetDataBoostEnabled() }},
	} {
		t.Run(o.set, func(t *testing.T) {
			ctx := context.Background()
			s := fakespanner.Start(t)
			s.AddResult(optQuery, fakespanner.Select1())
			s.AddResult(optUpdate, fakespanner.DML(1))
			s.AddPartitions(optPart, &fakespanner.Result{ResultSet: stringRows("a")}, &fakespanner.Result{ResultSet: stringRows("b")})
			c := dbConn(t, openFake(t, s))
			for _, k := range optKinds() {
				s.ResetRequests()
				if _, err := c.ExecContext(ctx, o.set); err != nil {
					t.Fatal(err)
				}
				err := k.run(ctx, c)
				if slices.Contains(o.refused, k.name) {
					if status.Code(err) != codes.InvalidArgument || len(s.RequestsFor(k.method)) != 0 {
						t.Errorf("%s: %v, %d %s sent; want InvalidArgument and nothing sent", k.name, err, len(s.RequestsFor(k.method)), k.method)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", k.name, err)
				}
				reqs := s.RequestsFor(k.method)
				if len(reqs) == 0 {
					t.Fatalf("%s: no %s request", k.name, k.method)
				}
				for _, r := range reqs {
					if got, want := o.has(r), slices.Contains(o.on, k.name); got != want {
						t.Errorf("%s: %s carries the option: %v, want %v (%v)", k.name, k.method, got, want, r.Message)
					}
				}
			}
		})
	}
}
