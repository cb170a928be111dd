// Command roundtrips counts the RPCs that go-sql-spanner and spannerfast make
// for the same operations on a warmed connection, against one server that
// records every call, and prints the two side by side (RESULTS.md).
//
// The Spanner service is go-sql-spanner's own mock server (testutil); the
// database admin and long-running operations services are a small fake here
// that answers UpdateDatabaseDdl with an operation that is not yet done, and
// GetOperation with it done, as Spanner does for a schema change. Every
// call to either service goes through one interceptor that records its
// method name, so both drivers are counted by the same rule.
//
// This file is a template: run.sh copies it into a scratch module that
// points at a go-sql-spanner checkout and at a spannerfast checkout.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	gss "github.com/googleapis/go-sql-spanner"
	"github.com/googleapis/go-sql-spanner/testutil"
	sf "github.com/spannerfast/spannerfast/driver"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

const (
	query     = "SELECT 1"
	update    = "UPDATE FOO SET BAR=1 WHERE BAZ=2"
	partQuery = "SELECT id FROM parts"
	failing   = "UPDATE FOO SET BAR=2 WHERE BAZ=3"
	update1   = "UPDATE FOO SET BAR=1 WHERE BAZ=1" // one row
	parts     = 3
)

// recorder keeps the method names of the calls the server received.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(full string) {
	r.mu.Lock()
	r.calls = append(r.calls, path.Base(full))
	r.mu.Unlock()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

// admin is the fake DatabaseAdmin and Operations service.
type admin struct {
	databasepb.UnimplementedDatabaseAdminServer
	longrunningpb.UnimplementedOperationsServer
	mu  sync.Mutex
	n   int
	ops map[string]*databasepb.UpdateDatabaseDdlRequest
}

func (a *admin) UpdateDatabaseDdl(_ context.Context, req *databasepb.UpdateDatabaseDdlRequest) (*longrunningpb.Operation, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	name := fmt.Sprintf("%s/operations/ddl%d", req.GetDatabase(), a.n)
	a.ops[name] = req
	md, _ := anypb.New(&databasepb.UpdateDatabaseDdlMetadata{Database: req.GetDatabase(), Statements: req.GetStatements()})
	return &longrunningpb.Operation{Name: name, Metadata: md}, nil
}

func (a *admin) GetOperation(_ context.Context, req *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) {
	a.mu.Lock()
	ddl := a.ops[req.GetName()]
	a.mu.Unlock()
	ts := make([]*timestamppb.Timestamp, len(ddl.GetStatements()))
	for i := range ts {
		ts[i] = timestamppb.Now()
	}
	md, _ := anypb.New(&databasepb.UpdateDatabaseDdlMetadata{Database: ddl.GetDatabase(), Statements: ddl.GetStatements(), CommitTimestamps: ts})
	resp, _ := anypb.New(&emptypb.Empty{})
	return &longrunningpb.Operation{Name: req.GetName(), Metadata: md, Done: true, Result: &longrunningpb.Operation_Response{Response: resp}}, nil
}

// server is one mock server with a recorder in front of it.
type server struct {
	addr    string
	rec     *recorder
	spanner testutil.InMemSpannerServer
	gs      *grpc.Server
}

func startServer(dialect databasepb.DatabaseDialect) (*server, error) {
	rec := &recorder{}
	sp := testutil.NewInMemSpannerServer()
	_ = sp.PutStatementResult("select option_value from information_schema.database_options where option_name='database_dialect'",
		&testutil.StatementResult{Type: testutil.StatementResultResultSet, ResultSet: testutil.CreateSelectDialectResultSet(dialect)})
	_ = sp.PutStatementResult(query, &testutil.StatementResult{Type: testutil.StatementResultResultSet, ResultSet: testutil.CreateSelect1ResultSet()})
	_ = sp.PutStatementResult(update, &testutil.StatementResult{Type: testutil.StatementResultUpdateCount, UpdateCount: 5})
	_ = sp.PutStatementResult(update1, &testutil.StatementResult{Type: testutil.StatementResultUpdateCount, UpdateCount: 1})
	_ = sp.PutStatementResult(failing, &testutil.StatementResult{Type: testutil.StatementResultError, Err: status.Error(codes.AlreadyExists, "row exists")})
	for _, pg := range []bool{false, true} {
		rs := testutil.CreateSingleColumnInt64ResultSet([]int64{1}, "bar")
		rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}
		_ = sp.PutStatementResult(returning(pg), &testutil.StatementResult{Type: testutil.StatementResultResultSet, ResultSet: rs})
	}
	// A fixed number of partitions (PartitionQuery answers with one token
	// per registered partition result).
	for i := 0; i < parts; i++ {
		rs := testutil.CreateSingleColumnInt64ResultSet([]int64{int64(i)}, "id")
		_ = sp.PutPartitionResult([]byte(fmt.Sprintf("%s: %d", partQuery, i)),
			&testutil.StatementResult{Type: testutil.StatementResultResultSet, ResultSet: rs})
	}
	_ = sp.PutStatementResult(partQuery, &testutil.StatementResult{Type: testutil.StatementResultResultSet,
		ResultSet: testutil.CreateSingleColumnInt64ResultSet([]int64{0, 1, 2}, "id")})
	ad := &admin{ops: map[string]*databasepb.UpdateDatabaseDdlRequest{}}
	gs := grpc.NewServer(
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			rec.add(info.FullMethod)
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			rec.add(info.FullMethod)
			return h(srv, ss)
		}))
	spannerpb.RegisterSpannerServer(gs, sp)
	databasepb.RegisterDatabaseAdminServer(gs, ad)
	longrunningpb.RegisterOperationsServer(gs, ad)
	lis, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		return nil, err
	}
	go func() { _ = gs.Serve(lis) }()
	return &server{addr: lis.Addr().String(), rec: rec, spanner: sp, gs: gs}, nil
}

func (s *server) stop() {
	s.spanner.Stop()
	s.gs.Stop()
}

// api is what differs between the two drivers: the package that holds the
// Go API (the calls are the same).
type api struct {
	apply       func(ctx context.Context, c *sql.Conn, ms []*spanner.Mutation, opts ...spanner.ApplyOption) error
	bufferWrite func(c *sql.Conn, ms []*spanner.Mutation) error
	batchAPI    func(ctx context.Context, c *sql.Conn, stmts ...string) error
	autoPartArg any
}

var apis = map[string]api{
	"spanner": {
		apply: func(ctx context.Context, c *sql.Conn, ms []*spanner.Mutation, opts ...spanner.ApplyOption) error {
			return c.Raw(func(dc any) error {
				_, err := dc.(gss.SpannerConn).Apply(ctx, ms, opts...)
				return err
			})
		},
		bufferWrite: func(c *sql.Conn, ms []*spanner.Mutation) error {
			return c.Raw(func(dc any) error { return dc.(gss.SpannerConn).BufferWrite(ms) })
		},
		batchAPI: func(ctx context.Context, c *sql.Conn, stmts ...string) error {
			_, err := gss.ExecuteBatchDmlOnConn(ctx, c, func(ctx context.Context, b gss.DmlBatch) error {
				for _, s := range stmts {
					if err := b.ExecContext(ctx, s); err != nil {
						return err
					}
				}
				return nil
			})
			return err
		},
		autoPartArg: gss.ExecOptions{PartitionedQueryOptions: gss.PartitionedQueryOptions{AutoPartitionQuery: true}},
	},
	"spannerfast": {
		apply: func(ctx context.Context, c *sql.Conn, ms []*spanner.Mutation, opts ...spanner.ApplyOption) error {
			return c.Raw(func(dc any) error {
				_, err := dc.(sf.SpannerConn).Apply(ctx, ms, opts...)
				return err
			})
		},
		bufferWrite: func(c *sql.Conn, ms []*spanner.Mutation) error {
			return c.Raw(func(dc any) error { return dc.(sf.SpannerConn).BufferWrite(ms) })
		},
		batchAPI: func(ctx context.Context, c *sql.Conn, stmts ...string) error {
			_, err := sf.ExecuteBatchDmlOnConn(ctx, c, func(ctx context.Context, b sf.DmlBatch) error {
				for _, s := range stmts {
					if err := b.ExecContext(ctx, s); err != nil {
						return err
					}
				}
				return nil
			})
			return err
		},
		autoPartArg: sf.ExecOptions{PartitionedQueryOptions: sf.PartitionedQueryOptions{AutoPartitionQuery: true}},
	},
}

// op is one measured operation: prep runs before the count starts (it may
// script the server for this run), run is counted, after runs once the
// count is taken.
type op struct {
	name  string
	prep  func(ctx context.Context, c *sql.Conn, s *server, pg bool) error
	run   func(ctx context.Context, c *sql.Conn, a api, pg bool) error
	after func(ctx context.Context, c *sql.Conn, pg bool) error
}

func drain(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no rows")
	}
	return nil
}

func execAll(ctx context.Context, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, stmts ...string) error {
	for _, s := range stmts {
		if _, err := q.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func txn(ctx context.Context, c *sql.Conn, ro bool, body func(*sql.Tx) error) error {
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: ro})
	if err != nil {
		return err
	}
	if err := body(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// set returns a prep that sets a connection property. The name is the
// unprefixed one in both dialects, as go-sql-spanner's PostgreSQL sample
// writes it.
func set(name, value string) func(ctx context.Context, c *sql.Conn, s *server, pg bool) error {
	return func(ctx context.Context, c *sql.Conn, _ *server, _ bool) error {
		return execAll(ctx, c, fmt.Sprintf("SET %s = %s", name, value))
	}
}

// unset undoes set after the count.
func unset(name, value string) func(ctx context.Context, c *sql.Conn, pg bool) error {
	return func(ctx context.Context, c *sql.Conn, pg bool) error { return set(name, value)(ctx, c, nil, pg) }
}

// returning is an UPDATE that returns a column, in the dialect.
func returning(pg bool) string {
	if pg {
		return update + " RETURNING bar"
	}
	return update + " THEN RETURN BAR"
}

// abortedErr is ABORTED with a retry delay of zero, as Spanner sends it.
func abortedErr() error {
	st := status.New(codes.Aborted, "Transaction aborted")
	st, _ = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Millisecond)})
	return st.Err()
}

func ddl(pg bool, table string) string {
	if pg {
		return "CREATE TABLE " + table + " (id bigint primary key)"
	}
	return "CREATE TABLE " + table + " (id INT64) PRIMARY KEY (id)"
}

var insert = spanner.Insert("FOO", []string{"ID"}, []any{int64(1)})

var ops = []op{
	{name: "point query (autocommit)", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return drain(c.QueryContext(ctx, query))
	}},
	{name: "autocommit DML", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return execAll(ctx, c, update)
	}},
	{name: "autocommit DML with THEN RETURN / RETURNING", run: func(ctx context.Context, c *sql.Conn, _ api, pg bool) error {
		return drain(c.QueryContext(ctx, returning(pg)))
	}},
	{name: "read-write txn: query + DML + commit", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return txn(ctx, c, false, func(tx *sql.Tx) error {
			if err := drain(tx.QueryContext(ctx, query)); err != nil {
				return err
			}
			return execAll(ctx, tx, update)
		})
	}},
	{name: "read-write txn: DML + commit", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return txn(ctx, c, false, func(tx *sql.Tx) error { return execAll(ctx, tx, update) })
	}},
	{name: "read-write txn: two DML + commit", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return txn(ctx, c, false, func(tx *sql.Tx) error { return execAll(ctx, tx, update, update) })
	}},
	{name: "read-write txn: mutations (BufferWrite) + commit", run: func(ctx context.Context, c *sql.Conn, a api, _ bool) error {
		// go-sql-spanner's way: Raw on the *sql.Conn that holds the transaction.
		return txn(ctx, c, false, func(*sql.Tx) error { return a.bufferWrite(c, []*spanner.Mutation{insert}) })
	}},
	{name: "read-write txn: query + mutations + commit", run: func(ctx context.Context, c *sql.Conn, a api, _ bool) error {
		return txn(ctx, c, false, func(tx *sql.Tx) error {
			if err := drain(tx.QueryContext(ctx, query)); err != nil {
				return err
			}
			return a.bufferWrite(c, []*spanner.Mutation{insert})
		})
	}},
	{name: "read-write txn: empty commit", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return txn(ctx, c, false, func(*sql.Tx) error { return nil })
	}},
	{name: "read-write txn: DML + rollback", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := execAll(ctx, tx, update); err != nil {
			return err
		}
		return tx.Rollback()
	}},
	{name: "read-write txn: failing DML, DML + commit", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return txn(ctx, c, false, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, failing); status.Code(err) != codes.AlreadyExists {
				return fmt.Errorf("failing DML: %v, want AlreadyExists", err)
			}
			return execAll(ctx, tx, update)
		})
	}},
	{name: "read-write txn: DML + commit, Commit aborted once (retried internally)",
		prep: func(_ context.Context, _ *sql.Conn, s *server, _ bool) error {
			s.spanner.PutExecutionTime(testutil.MethodCommitTransaction, testutil.SimulatedExecutionTime{Errors: []error{abortedErr()}})
			return nil
		},
		run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
			return txn(ctx, c, false, func(tx *sql.Tx) error { return execAll(ctx, tx, update) })
		}},
	// The update-count check is off: with it, go-sql-spanner at 28b0df2
	// failed here (it compared Spanner's count of 1 with 0), and the
	// check is not what this counts.
	{name: "read-write txn with auto_batch_dml: two DML + commit",
		prep: func(ctx context.Context, c *sql.Conn, _ *server, _ bool) error {
			return execAll(ctx, c, "SET AUTO_BATCH_DML = true", "SET AUTO_BATCH_DML_UPDATE_COUNT_VERIFICATION = false")
		},
		after: func(ctx context.Context, c *sql.Conn, _ bool) error {
			return execAll(ctx, c, "SET AUTO_BATCH_DML = false", "SET AUTO_BATCH_DML_UPDATE_COUNT_VERIFICATION = true")
		},
		run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
			return txn(ctx, c, false, func(tx *sql.Tx) error { return execAll(ctx, tx, update1, update1) })
		}},
	{name: "read-only txn: two queries + commit", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return txn(ctx, c, true, func(tx *sql.Tx) error {
			if err := drain(tx.QueryContext(ctx, query)); err != nil {
				return err
			}
			return drain(tx.QueryContext(ctx, query))
		})
	}},
	{name: "DML batch (START BATCH DML, 2 DML, RUN BATCH)", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return execAll(ctx, c, "START BATCH DML", update, update, "RUN BATCH")
	}},
	{name: "DML batch (ExecuteBatchDmlOnConn, 2 DML)", run: func(ctx context.Context, c *sql.Conn, a api, _ bool) error {
		return a.batchAPI(ctx, c, update, update)
	}},
	{name: "DML batch in read-write txn + commit", run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error {
		return txn(ctx, c, false, func(tx *sql.Tx) error {
			return execAll(ctx, tx, "START BATCH DML", update, update, "RUN BATCH")
		})
	}},
	{name: "Apply", run: func(ctx context.Context, c *sql.Conn, a api, _ bool) error {
		return a.apply(ctx, c, []*spanner.Mutation{insert})
	}},
	{name: "Apply at least once", run: func(ctx context.Context, c *sql.Conn, a api, _ bool) error {
		return a.apply(ctx, c, []*spanner.Mutation{insert}, spanner.ApplyAtLeastOnce())
	}},
	{name: fmt.Sprintf("partitioned query (AutoPartitionQuery, %d partitions)", parts), run: func(ctx context.Context, c *sql.Conn, a api, _ bool) error {
		return drain(c.QueryContext(ctx, partQuery, a.autoPartArg))
	}},
	{name: "partitioned DML", prep: set("AUTOCOMMIT_DML_MODE", "'PARTITIONED_NON_ATOMIC'"), after: unset("AUTOCOMMIT_DML_MODE", "'TRANSACTIONAL'"),
		run: func(ctx context.Context, c *sql.Conn, _ api, _ bool) error { return execAll(ctx, c, update) }},
	{name: "DDL (one statement)", run: func(ctx context.Context, c *sql.Conn, _ api, pg bool) error {
		return execAll(ctx, c, ddl(pg, "t1"))
	}},
	{name: "DDL batch (START BATCH DDL, 2 statements, RUN BATCH)", run: func(ctx context.Context, c *sql.Conn, _ api, pg bool) error {
		return execAll(ctx, c, "START BATCH DDL", ddl(pg, "t2"), ddl(pg, "t3"), "RUN BATCH")
	}},
}

// result is one driver's calls for one operation in one dialect.
type result struct {
	first, steady []string
	err           error
}

func measure(driverName string, dialect databasepb.DatabaseDialect) ([]result, error) {
	s, err := startServer(dialect)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	pg := dialect == databasepb.DatabaseDialect_POSTGRESQL
	db, err := sql.Open(driverName, s.addr+"/projects/p/instances/i/databases/d?useplaintext=true")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	// Warm: the session exists and the dialect is known. The calls of
	// this first query (connecting included) are the row "cold".
	if err := drain(c.QueryContext(ctx, query)); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	time.Sleep(300 * time.Millisecond)
	cold := s.rec.take()
	out := make([]result, len(ops), len(ops)+1)
	for round := 0; round < 2; round++ {
		for i, o := range ops {
			if o.prep != nil {
				if err := o.prep(ctx, c, s, pg); err != nil {
					return nil, fmt.Errorf("%s: prep: %w", o.name, err)
				}
			}
			s.rec.take()
			err := o.run(ctx, c, apis[driverName], pg)
			time.Sleep(100 * time.Millisecond) // anything the driver does after returning
			calls := s.rec.take()
			if o.after != nil {
				if err := o.after(ctx, c, pg); err != nil {
					return nil, fmt.Errorf("%s: after: %w", o.name, err)
				}
			}
			if round == 0 {
				out[i].first = calls
			} else {
				out[i].steady = calls
			}
			if err != nil && out[i].err == nil {
				out[i].err = err
			}
		}
	}
	return append(out, result{first: cold, steady: cold}), nil
}

// short writes a call sequence with repeats folded: "BeginTransaction,
// ExecuteStreamingSql x3".
func short(calls []string) string {
	if len(calls) == 0 {
		return "-"
	}
	var parts []string
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && calls[j] == calls[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s x%d", calls[i], j-i))
		} else {
			parts = append(parts, calls[i])
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

func main() {
	flag.Parse()
	_ = os.Setenv("GOOGLE_CLOUD_SPANNER_DISABLE_LOG_CLIENT_OPTIONS", "true")
	drivers := []string{"spanner", "spannerfast"}
	failed := false
	for _, d := range []databasepb.DatabaseDialect{databasepb.DatabaseDialect_GOOGLE_STANDARD_SQL, databasepb.DatabaseDialect_POSTGRESQL} {
		res := map[string][]result{}
		for _, drv := range drivers {
			r, err := measure(drv, d)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s %s: %v\n", drv, d, err)
				os.Exit(1)
			}
			res[drv] = r
		}
		fmt.Printf("\n### %s\n\n", d)
		fmt.Println("| operation | RPCs go-sql-spanner | RPCs spannerfast | go-sql-spanner calls | spannerfast calls |")
		fmt.Println("|---|---|---|---|---|")
		for i, o := range ops {
			g, f := res["spanner"][i], res["spannerfast"][i]
			cell := func(r result) string {
				s := short(r.steady)
				if !slices.Equal(r.first, r.steady) {
					s += " (first time: " + short(r.first) + ")"
				}
				if r.err != nil {
					s += " ERROR: " + strings.ReplaceAll(r.err.Error(), "|", "/")
					failed = true
				}
				return s
			}
			fmt.Printf("| %s | %d | %d | %s | %s |\n", o.name, len(g.steady), len(f.steady), cell(g), cell(f))
		}
		g, f := res["spanner"][len(ops)], res["spannerfast"][len(ops)]
		fmt.Printf("| cold: connect, first point query (calls within 300 ms) | %d | %d | %s | %s |\n", len(g.steady), len(f.steady), short(g.steady), short(f.steady))
	}
	if failed {
		os.Exit(1)
	}
}
