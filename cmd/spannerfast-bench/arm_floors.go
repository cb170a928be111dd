package main

import (
	"context"
	"database/sql"
	"fmt"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/bare"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/sqlfloor"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func init() {
	register(armSpec{id: armTransport, title: "transport floor", order: 10, available: true,
		applies: bareRuns, open: openTransport})
	register(armSpec{id: armSQLFloor, title: "database/sql floor", order: 20, available: true,
		open: openSQLFloor})
}

// ---- transport floor: the stream read with gRPC alone ----

// transportArm is the bare gRPC arm: grpc.NewClient with default options
// (plain text, which the fake server needs, is the only one), one
// ClientConn, and per operation the RPCs the spannerfast driver makes for
// it, with the request bytes and headers it sends (captured from the
// driver at open, see capture.go), responses counted, not decoded. For
// the reads it is the transport floor.
type transportArm struct {
	conn    *grpc.ClientConn
	scripts map[string][]bare.Call // by workload name
}

// captureCalls, when the spannerfast arms are built in, returns the RPCs
// the driver makes for one operation of each workload of e that the bare
// arm runs (capture.go); nil otherwise.
var captureCalls func(ctx context.Context, e *env, runs func(*workload.Workload) bool) (map[string][]bare.Call, error)

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
	a := &transportArm{conn: conn, scripts: map[string][]bare.Call{}}
	if captureCalls == nil {
		// Without the driver to capture from: plain requests of its own.
		err = a.buildReads(ctx, e)
	} else if a.scripts, err = captureCalls(ctx, e, bareRuns); err != nil {
		err = fmt.Errorf("capturing the spannerfast driver's requests: %w", err)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return a, nil
}

// buildReads prepares, without the driver to capture from, a plain
// ExecuteSqlRequest for every read on a multiplexed session of its own.
func (a *transportArm) buildReads(ctx context.Context, e *env) error {
	sess, err := spannerpb.NewSpannerClient(a.conn).CreateSession(ctx, &spannerpb.CreateSessionRequest{
		Database: e.database, Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil {
		return fmt.Errorf("creating a session: %w", err)
	}
	md := metadata.Pairs("google-cloud-resource-prefix", e.database)
	for _, w := range e.workloads {
		if w.Op != workload.OpQuery || !w.HasResult() {
			continue
		}
		b, err := proto.Marshal(&spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: w.SQL})
		if err != nil {
			return fmt.Errorf("marshalling the request of %s: %w", w.Name, err)
		}
		a.scripts[w.Name] = []bare.Call{bare.NewCall(bare.ExecuteStreamingSQL, md, b)}
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
	var sample func()
	if hs != nil {
		sample = hs.sample
	}
	var total uint64
	for q := 0; q < w.Queries; q++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		for i := range script {
			n, err := bare.Do(a.conn, &script[i], sample)
			if err != nil {
				return 0, fmt.Errorf("op %d: %s: %w", q, script[i].Method, err)
			}
			total += n
		}
	}
	return total, nil
}

func (a *transportArm) close() error { return a.conn.Close() }

// ---- database/sql floor: a driver whose Next only copies values ----

type sqlFloorArm struct {
	db    *sql.DB
	dests destSet
}

func openSQLFloor(_ context.Context, e *env) (arm, error) {
	return &sqlFloorArm{dests: newDestSet(e.workloads, false), db: sql.OpenDB(sqlfloor.NewConnector(e.workloads))}, nil
}

func (a *sqlFloorArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	return runSQL(ctx, a.db, w, a.dests.get(w), hs)
}

func (a *sqlFloorArm) close() error { return a.db.Close() }
