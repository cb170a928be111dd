package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func init() {
	register(armSpec{id: armTransport, title: "transport floor", order: 10, available: true,
		open: openTransport})
	register(armSpec{id: armSQLFloor, title: "database/sql floor", order: 20, available: true,
		open: openSQLFloor})
}

// ---- transport floor: the stream read with gRPC alone ----

// rawCodec sends pre-marshalled requests and receives responses without
// looking at them: it only counts their bytes.
type rawCodec struct{}

// rawCount is what rawCodec.Unmarshal fills in.
type rawCount struct {
	bytes, messages int
}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot marshal %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	c, ok := v.(*rawCount)
	if !ok {
		return fmt.Errorf("rawCodec: cannot unmarshal into %T", v)
	}
	c.bytes += data.Len()
	c.messages++
	return nil
}

// Name "" keeps the default content subtype.
func (rawCodec) Name() string { return "" }

type transportArm struct {
	conn *grpc.ClientConn
	ctx  context.Context // carries the resource-prefix header
	reqs map[string][]byte
}

var streamDesc = grpc.StreamDesc{StreamName: "ExecuteStreamingSql", ServerStreams: true}

const executeStreamingSQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"

func openTransport(ctx context.Context, e *env) (arm, error) {
	conn, err := grpc.NewClient(e.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", e.addr, err)
	}
	sess, err := spannerpb.NewSpannerClient(conn).CreateSession(ctx, &spannerpb.CreateSessionRequest{
		Database: e.database, Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("creating a session: %w", err)
	}
	a := &transportArm{conn: conn, reqs: map[string][]byte{},
		ctx: metadata.AppendToOutgoingContext(context.Background(), "google-cloud-resource-prefix", e.database)}
	for _, w := range e.workloads {
		b, err := proto.Marshal(&spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: w.SQL})
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("marshalling the request of %s: %w", w.Name, err)
		}
		a.reqs[w.SQL] = b
	}
	return a, nil
}

func (a *transportArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	req, ok := a.reqs[w.SQL]
	if !ok {
		return 0, fmt.Errorf("no request prepared for %s", w.Name)
	}
	var total uint64
	opt := grpc.ForceCodecV2(rawCodec{})
	for q := 0; q < w.Queries; q++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		// A stream read to io.EOF releases everything, so the floor needs
		// no per-query cancel function.
		st, err := a.conn.NewStream(a.ctx, &streamDesc, executeStreamingSQL, opt)
		if err != nil {
			return 0, fmt.Errorf("query %d: %w", q, err)
		}
		if err := st.SendMsg(req); err != nil {
			return 0, fmt.Errorf("query %d: send: %w", q, err)
		}
		if err := st.CloseSend(); err != nil {
			return 0, fmt.Errorf("query %d: close send: %w", q, err)
		}
		var c rawCount
		for {
			err := st.RecvMsg(&c)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return 0, fmt.Errorf("query %d: receive: %w", q, err)
			}
			if hs != nil && c.messages%4 == 0 {
				hs.sample()
			}
		}
		if c.messages == 0 {
			return 0, fmt.Errorf("query %d: no messages", q)
		}
		total += uint64(c.bytes)
	}
	return total, nil
}

func (a *transportArm) close() error { return a.conn.Close() }

// ---- database/sql floor: a driver whose Next only copies values ----

// floorResult holds pre-decoded rows of one workload. Only the first
// floorCycle distinct rows are kept (repeated), so that the floor's live
// heap does not slow the garbage collector for the other arms.
type floorResult struct {
	cols []string
	rows [][]driver.Value
	n    int // rows per query
}

const floorCycle = 1024

type floorConnector struct{ results map[string]*floorResult }

func (c *floorConnector) Connect(context.Context) (driver.Conn, error) { return &floorConn{c}, nil }
func (c *floorConnector) Driver() driver.Driver                        { return floorDriver{c} }

type floorDriver struct{ c *floorConnector }

func (d floorDriver) Open(string) (driver.Conn, error) { return &floorConn{d.c}, nil }

type floorConn struct{ c *floorConnector }

var errFloorUnsupported = errors.New("database/sql floor: only QueryContext is supported")

func (c *floorConn) Prepare(string) (driver.Stmt, error) { return nil, errFloorUnsupported }
func (c *floorConn) Close() error                        { return nil }
func (c *floorConn) Begin() (driver.Tx, error)           { return nil, errFloorUnsupported }

func (c *floorConn) QueryContext(_ context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, ok := c.c.results[query]
	if !ok || len(args) > 0 {
		return nil, fmt.Errorf("database/sql floor: no result for %q with %d args", query, len(args))
	}
	return &floorRows{r: r}, nil
}

type floorRows struct {
	r *floorResult
	i int
}

func (r *floorRows) Columns() []string { return r.r.cols }
func (r *floorRows) Close() error      { return nil }

func (r *floorRows) Next(dest []driver.Value) error {
	if r.i >= r.r.n {
		return io.EOF
	}
	copy(dest, r.r.rows[r.i%len(r.r.rows)])
	r.i++
	return nil
}

type sqlFloorArm struct {
	db    *sql.DB
	dests destSet
}

func openSQLFloor(_ context.Context, e *env) (arm, error) {
	c := &floorConnector{results: map[string]*floorResult{}}
	a := &sqlFloorArm{dests: newDestSet(e.workloads, false)}
	for _, w := range e.workloads {
		r := &floorResult{n: w.Rows}
		for _, col := range w.Columns {
			r.cols = append(r.cols, col.Name)
		}
		for i := 0; i < min(w.Rows, floorCycle); i++ {
			row := make([]driver.Value, len(w.Columns))
			for col := range row {
				row[col] = w.GoValue(i, col)
			}
			r.rows = append(r.rows, row)
		}
		c.results[w.SQL] = r
	}
	a.db = sql.OpenDB(c)
	return a, nil
}

func (a *sqlFloorArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	return runSQL(ctx, a.db, w, a.dests.get(w), hs)
}

func (a *sqlFloorArm) close() error { return a.db.Close() }
