package rows_test

import (
	"context"
	"database/sql/driver"
	"math/rand/v2"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/randrs"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/rows"
)

// TestDecodedCounts checks Decoded, which counts per message and not per
// row: on random result sets cut into messages and chunks at random, after
// reading some of the rows (none, a few, all), it reports the rows Next
// returned and the bytes of every message loaded, in every mode, when a
// meter listens to its operation; when nobody listens it counts nothing.
func TestDecodedCounts(t *testing.T) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer mp.Shutdown(context.Background())
	tel := telemetry.New(telemetry.Config{MeterProvider: mp})
	r := rand.New(rand.NewPCG(11, 12))
	for iter := range 60 {
		rs := randrs.ResultSet(r, randrs.Options{MaxRows: 12, MaxColumns: 8})
		var values []*structpb.Value
		for _, row := range rs.GetRows() {
			values = append(values, row.GetValues()...)
		}
		msgs := chunkStream(rs.GetMetadata(), values, r, iter%2 == 0)
		total := len(rs.GetRows())
		for _, m := range modes {
			read := r.IntN(total + 2) // total+1: read to the end (io.EOF)
			s := newStream(t, msgs...)
			_, op := tel.Start(context.Background(), telemetry.Query, "")
			rw, err := rows.Open(opStream{s, op}, m.opts)
			if err != nil {
				t.Fatalf("iteration %d %s: Open: %v", iter, m.name, err)
			}
			dest := make([]driver.Value, len(rw.Columns()))
			got := 0
			for got < read && rw.Next(dest) == nil {
				got++
			}
			n, b := rw.Decoded()
			if n != int64(got) {
				t.Errorf("iteration %d %s: Decoded reports %d rows after %d were read (of %d)", iter, m.name, n, got, total)
			}
			var loaded int64
			s.mu.Lock()
			for _, f := range s.bufs {
				loaded += int64(len(f))
			}
			s.mu.Unlock()
			// A prefetcher receives messages before they are loaded: all
			// of them are loaded once the rows are read to their end.
			if (m.opts.Prefetch == 0 || read > total) && b != loaded {
				t.Errorf("iteration %d %s: Decoded reports %d bytes, %d were loaded", iter, m.name, b, loaded)
			}
			rw.Close()
		}
	}
	// Unheard: nothing is counted.
	rs := randrs.ResultSet(r, randrs.Options{MaxRows: 12, MaxColumns: 8})
	for len(rs.GetRows()) == 0 || len(rs.GetMetadata().GetRowType().GetFields()) == 0 {
		rs = randrs.ResultSet(r, randrs.Options{MaxRows: 12, MaxColumns: 8})
	}
	var values []*structpb.Value
	for _, row := range rs.GetRows() {
		values = append(values, row.GetValues()...)
	}
	rw, err := rows.Open(newStream(t, chunkStream(rs.GetMetadata(), values, r, true)...), rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(rw); err != nil {
		t.Fatal(err)
	}
	if n, b := rw.Decoded(); n != 0 || b != 0 {
		t.Errorf("with nobody listening Decoded reports %d rows, %d bytes", n, b)
	}
	rw.Close()
}

// opStream is a stream that carries its query's operation, as
// internal/stream's Query does.
type opStream struct {
	*fakeStream
	op telemetry.Op
}

func (s opStream) TakeOp() telemetry.Op { return s.op }
