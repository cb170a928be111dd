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

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func init() {
	register(armSpec{id: armTransport, title: "transport floor", order: 10, available: true,
		applies: bareRuns, open: openTransport})
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

// transportArm is the bare gRPC arm: grpc.NewClient with default options
// (plain text, which the fake server needs, is the only one), one
// ClientConn, and per operation the RPCs the spannerfast driver makes for
// it, with the request bytes and headers it sends (captured from the
// driver at open, see capture.go), responses counted, not decoded. For
// the reads it is the transport floor.
type transportArm struct {
	conn    *grpc.ClientConn
	scripts map[string][]bareCall // by workload name
}

// bareCall is one RPC of an operation, ready to send.
type bareCall struct {
	method string
	stream bool            // server streaming (ExecuteStreamingSql)
	ctx    context.Context // carries the headers
	req    []byte
}

var streamDesc = grpc.StreamDesc{StreamName: "ExecuteStreamingSql", ServerStreams: true}

const executeStreamingSQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"

// captureCalls, when the spannerfast arms are built in, returns the RPCs
// the driver makes for one operation of each workload of e that the bare
// arm runs (capture.go); nil otherwise.
var captureCalls func(ctx context.Context, e *env, runs func(*workload.Workload) bool) (map[string][]benchserver.Call, error)

// bareRuns says which workloads the bare arm runs: the reads of the
// transport floor, and the operations of the per-call table.
func bareRuns(w *workload.Workload) bool {
	if w.Op == workload.OpQuery {
		return w.Partitions == 0 && w.MessageDelay == 0
	}
	return w.PerCall
}

func openTransport(ctx context.Context, e *env) (arm, error) {
	conn, err := grpc.NewClient(e.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", e.addr, err)
	}
	a := &transportArm{conn: conn, scripts: map[string][]bareCall{}}
	if captureCalls == nil {
		// Without the driver: reads with requests of the same content.
		err = a.buildReads(ctx, e)
	} else {
		err = a.useCaptured(ctx, e)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return a, nil
}

// useCaptured prepares the calls the driver made.
func (a *transportArm) useCaptured(ctx context.Context, e *env) error {
	calls, err := captureCalls(ctx, e, bareRuns)
	if err != nil {
		return fmt.Errorf("capturing the spannerfast driver's requests: %w", err)
	}
	for name, cs := range calls {
		for _, c := range cs {
			a.scripts[name] = append(a.scripts[name], bareCall{method: c.Method, stream: c.Method == executeStreamingSQL,
				ctx: metadata.NewOutgoingContext(context.Background(), c.MD), req: c.Req})
		}
	}
	return nil
}

// buildReads prepares, without the driver to capture from, a plain
// ExecuteSqlRequest for every read on a multiplexed session of its own.
func (a *transportArm) buildReads(ctx context.Context, e *env) error {
	sess, err := spannerpb.NewSpannerClient(a.conn).CreateSession(ctx, &spannerpb.CreateSessionRequest{
		Database: e.database, Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil {
		return fmt.Errorf("creating a session: %w", err)
	}
	hctx := metadata.AppendToOutgoingContext(context.Background(), "google-cloud-resource-prefix", e.database)
	for _, w := range e.workloads {
		if w.Op != workload.OpQuery || !w.HasResult() {
			continue
		}
		b, err := proto.Marshal(&spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: w.SQL})
		if err != nil {
			return fmt.Errorf("marshalling the request of %s: %w", w.Name, err)
		}
		a.scripts[w.Name] = []bareCall{{method: executeStreamingSQL, stream: true, ctx: hctx, req: b}}
	}
	return nil
}

func (a *transportArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	script, ok := a.scripts[w.Name]
	if !ok {
		if captureCalls == nil {
			return 0, &unavailableError{reason: "the bare arm replays the spannerfast driver's requests, and the driver is not built in"}
		}
		return 0, fmt.Errorf("no request prepared for %s", w.Name)
	}
	var total uint64
	for q := 0; q < w.Queries; q++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		for i := range script {
			n, err := a.call(&script[i], hs)
			if err != nil {
				return 0, fmt.Errorf("op %d: %s: %w", q, script[i].method, err)
			}
			total += n
		}
	}
	return total, nil
}

// call makes one RPC and returns the bytes of its responses.
func (a *transportArm) call(c *bareCall, hs *heapSampler) (uint64, error) {
	opt := grpc.ForceCodecV2(rawCodec{})
	var n rawCount
	if !c.stream {
		if err := a.conn.Invoke(c.ctx, c.method, c.req, &n, opt); err != nil {
			return 0, err
		}
		return uint64(n.bytes), nil
	}
	// A stream read to io.EOF releases everything, so the floor needs
	// no per-query cancel function.
	st, err := a.conn.NewStream(c.ctx, &streamDesc, c.method, opt)
	if err != nil {
		return 0, err
	}
	if err := st.SendMsg(c.req); err != nil {
		return 0, fmt.Errorf("send: %w", err)
	}
	if err := st.CloseSend(); err != nil {
		return 0, fmt.Errorf("close send: %w", err)
	}
	for {
		err := st.RecvMsg(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("receive: %w", err)
		}
		if hs != nil && n.messages%4 == 0 {
			hs.sample()
		}
	}
	if n.messages == 0 {
		return 0, errors.New("no messages")
	}
	return uint64(n.bytes), nil
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
