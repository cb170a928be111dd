package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// The long-result test streams millions of values. A fakespanner script
// keeps every message both encoded and as protos (hundreds of MiB for a
// million rows, all of it scanned by each runtime.GC the test runs), so
// this test serves the stream from a generator instead: rowGenServer is the
// fake server (sessions, SELECT 1) with ExecuteStreamingSql replaced by one
// that encodes each ~1 MiB message when it is sent and drops it after.

const longQuery = "SELECT id, s, f FROM long"

// genRowString is row r's STRING(16) value.
func genRowString(r int) string {
	const hex = "0123456789abcdef"
	var b [16]byte
	x := uint64(r) * 0x9E3779B97F4A7C15
	for i := 15; i >= 0; i-- {
		b[i] = hex[x&15]
		x >>= 4
	}
	return string(b[:])
}

func genRowFloat(r int) float64 { return float64(r) * 0.25 }

// genMessage is a pre-encoded PartialResultSet.
type genMessage []byte

// genCodec is gRPC's proto codec that sends pre-encoded messages (a
// genMessage, or the fake server's own encoded script messages: any byte
// slice type) as they are.
type genCodec struct{ base encoding.CodecV2 }

func (c genCodec) Marshal(v any) (mem.BufferSlice, error) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return mem.BufferSlice{mem.SliceBuffer(rv.Bytes())}, nil
	}
	return c.base.Marshal(v)
}

func (c genCodec) Unmarshal(data mem.BufferSlice, v any) error { return c.base.Unmarshal(data, v) }
func (genCodec) Name() string                                  { return grpcproto.Name }

// rowGenServer streams rows (INT64 id = row number, STRING(16), FLOAT64)
// in messages of perMsg rows, each with resume token "gen-<index>" (or
// none), and fails once with UNAVAILABLE before message faultAt.
type rowGenServer struct {
	*fakespanner.Server
	rows, perMsg int
	tokens       bool
	faultAt      int
	metadata     []byte

	faulted  atomic.Bool
	requests atomic.Int32
	resumed  atomic.Value // string: the last resume token received
}

func newRowGenServer(rows, perMsg int, tokens bool, faultAt int) *rowGenServer {
	md, err := proto.Marshal(&spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "id", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		{Name: "s", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}},
		{Name: "f", Type: &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}},
	}}})
	if err != nil {
		panic(err)
	}
	return &rowGenServer{Server: fakespanner.New(), rows: rows, perMsg: perMsg, tokens: tokens, faultAt: faultAt, metadata: md}
}

func (g *rowGenServer) messages() int { return (g.rows + g.perMsg - 1) / g.perMsg }

func appendStringValue(b, s []byte) []byte {
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(protowire.SizeTag(3)+protowire.SizeBytes(len(s))))
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	return protowire.AppendBytes(b, s)
}

// encode builds message i.
func (g *rowGenServer) encode(i int) genMessage {
	lo, hi := i*g.perMsg, min((i+1)*g.perMsg, g.rows)
	b := make([]byte, 0, (hi-lo)*44+len(g.metadata)+32)
	if i == 0 {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, g.metadata)
	}
	var num [20]byte
	for r := lo; r < hi; r++ {
		b = appendStringValue(b, strconv.AppendInt(num[:0], int64(r), 10))
		b = appendStringValue(b, []byte(genRowString(r)))
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(protowire.SizeTag(2)+8))
		b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(genRowFloat(r)))
	}
	if g.tokens {
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, []byte("gen-"+strconv.Itoa(i)))
	}
	return b
}

func (g *rowGenServer) ExecuteStreamingSql(req *spannerpb.ExecuteSqlRequest, stream spannerpb.Spanner_ExecuteStreamingSqlServer) error {
	if req.GetSql() != longQuery {
		return g.Server.ExecuteStreamingSql(req, stream)
	}
	g.requests.Add(1)
	start := 0
	if tok := string(req.GetResumeToken()); tok != "" {
		g.resumed.Store(tok)
		i, err := strconv.Atoi(strings.TrimPrefix(tok, "gen-"))
		if err != nil {
			return fmt.Errorf("bad resume token %q", tok)
		}
		start = i + 1
	}
	for i := start; i < g.messages(); i++ {
		if i == g.faultAt && g.faulted.CompareAndSwap(false, true) {
			return fakespanner.ErrUnavailable
		}
		// The message is not reused: gRPC may still read it after SendMsg.
		if err := stream.SendMsg(g.encode(i)); err != nil {
			return err
		}
	}
	return nil
}

// start serves g on loopback until the test ends and returns its DSN.
func (g *rowGenServer) start(t *testing.T, props ...string) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.ForceServerCodecV2(genCodec{base: encoding.GetCodecV2(grpcproto.Name)}))
	spannerpb.RegisterSpannerServer(gs, g)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = gs.Serve(lis)
	}()
	t.Cleanup(func() {
		gs.Stop()
		<-done
		g.Server.Close()
	})
	d := lis.Addr().String() + "/" + fakeDB + ";usePlainText=true;num_channels=1"
	for _, p := range props {
		d += ";" + p
	}
	return d
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// readLong reads the generated rows through database/sql, checking each
// one, and returns the largest HeapInuse (after a GC) sampled every
// sampleEvery rows.
func readLong(t *testing.T, db *sql.DB, rows, sampleEvery int) (maxInuse uint64) {
	t.Helper()
	rs, err := db.QueryContext(context.Background(), longQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var (
		id int64
		s  string
		f  float64
		n  int
	)
	for rs.Next() {
		if err := rs.Scan(&id, &s, &f); err != nil {
			t.Fatal(err)
		}
		if id != int64(n) || s != genRowString(n) || f != genRowFloat(n) {
			t.Fatalf("row %d: (%d, %q, %v), want (%d, %q, %v)", n, id, s, f, n, genRowString(n), genRowFloat(n))
		}
		n++
		if n%sampleEvery == 0 {
			maxInuse = max(maxInuse, heapInuse())
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if n != rows {
		t.Fatalf("%d rows, want %d", n, rows)
	}
	return maxInuse
}

// TestFakeLongResultMemory streams a long result of narrow rows in ~1 MiB
// messages with resume tokens (and one UNAVAILABLE in the middle, resumed)
// and requires that the driver holds no more than its read-ahead window
// plus a constant, however many rows pass through.
func TestFakeLongResultMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("long result: skipped with -short")
	}
	const (
		rows        = 1_000_000
		perMsg      = 25_000 // ~1 MiB messages
		sampleEvery = 50_000
		prefetch    = 4
		slack       = 16 << 20
	)
	g := newRowGenServer(rows, perMsg, true, 7)
	msgSize := len(g.encode(1))
	db, err := sql.Open("spannerfast", g.start(t, fmt.Sprintf("prefetch_messages=%d", prefetch)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	baseline := heapInuse()
	peak := readLong(t, db, rows, sampleEvery)
	limit := uint64(prefetch*msgSize + slack)
	t.Logf("%d rows in %d messages of %d KiB: HeapInuse baseline %d KiB, peak %d KiB (+%d KiB, limit +%d KiB)",
		rows, g.messages(), msgSize>>10, baseline>>10, peak>>10, (peak-min(peak, baseline))>>10, limit>>10)
	if peak > baseline && peak-baseline > limit {
		t.Fatalf("HeapInuse grew by %d KiB while streaming; want at most the read-ahead window plus %d MiB (%d KiB)",
			(peak-baseline)>>10, slack>>20, limit>>10)
	}
	if n := g.requests.Load(); n != 2 {
		t.Fatalf("%d requests, want 2 (one resumed after the injected UNAVAILABLE)", n)
	}
	if tok, _ := g.resumed.Load().(string); tok != "gen-6" {
		t.Fatalf("resumed with token %q, want gen-6", tok)
	}
}

// TestFakeLongResultMemoryControl shows that the measurement catches
// buffering: without resume tokens the driver must hold rows back (up to
// max_buffered_bytes) so that a retry cannot repeat them, and the heap
// grows by about the size of the result.
func TestFakeLongResultMemoryControl(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("long result: skipped with -short and under the race detector")
	}
	const rows, perMsg = 1_000_000, 25_000
	g := newRowGenServer(rows, perMsg, false, -1)
	total := 0
	for i := range g.messages() {
		total += len(g.encode(i))
	}
	db, err := sql.Open("spannerfast", g.start(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	baseline := heapInuse()
	peak := readLong(t, db, rows, 10_000)
	t.Logf("no resume tokens: %d KiB of messages, HeapInuse baseline %d KiB, peak %d KiB", total>>10, baseline>>10, peak>>10)
	if peak < baseline || peak-baseline < uint64(total)/2 {
		t.Fatalf("HeapInuse grew by only %d KiB while the driver had to buffer %d KiB", (peak-min(peak, baseline))>>10, total>>10)
	}
}
