package decode_test

import (
	"database/sql/driver"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/wire"
)

// TestSafeValuesOwnTheirMemory decodes many rows from several messages (some
// values chunked), keeps every value, then poisons the message bytes and
// churns the heap: the kept values must not change.
func TestSafeValuesOwnTheirMemory(t *testing.T) {
	cols := []*spannerpb.StructType_Field{
		fld("s", tString), fld("by", tBytes), fld("d", tDate), fld("u", tUUID), fld("n", tNumeric),
		fld("ts", tTimestamp), fld("i", tInt64), fld("f", tFloat64), fld("as", arrayOf(tString)),
		fld("j", tJSON), fld("ab", arrayOf(tBytes)), fld("ai", arrayOf(tInt64)), fld("af", arrayOf(tFloat64)),
		fld("abo", arrayOf(tBool)), fld("ad", arrayOf(tDate)),
	}
	r := rand.New(rand.NewPCG(3, 4))
	var values []*structpb.Value
	for i := range 300 {
		s := fmt.Sprintf("string %d %s", i, string(make([]byte, r.IntN(40))))
		values = append(values,
			str(s), str(base64.StdEncoding.EncodeToString([]byte(s))), str(fmt.Sprintf("%04d-01-02", 1+i)),
			str(fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)), str(fmt.Sprintf("%d.5", i)),
			str(fmt.Sprintf("2024-01-01T00:00:%02d.%dZ", i%60, i)), str(fmt.Sprint(i)), num(float64(i)/4),
			list(str(s), str("")), str(fmt.Sprintf(`{"i":%d}`, i)), list(str("AQID"), null()),
			list(str(fmt.Sprint(i)), str("-1")), list(num(float64(i)), str("NaN")), list(boolv(i%2 == 0)),
			list(str(fmt.Sprintf("%04d-01-02", 1+i))))
	}
	for _, o := range []decode.Options{{}, {NumericAsString: true}, {NativeArrays: true}} {
		msgs := chunkStream(values, r, metadataOf(cols...))
		var kept [][]driver.Value
		var want []string
		err := decodeStream(msgs, o, func(_ *decode.Plan, row []driver.Value) error {
			kept = append(kept, append([]driver.Value(nil), row...))
			want = append(want, canon(row))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != 300 {
			t.Fatalf("%d rows, want 300", len(kept))
		}
		for _, m := range msgs {
			wire.Poison(m)
		}
		churn()
		for i, row := range kept {
			if got := canon(row); got != want[i] {
				t.Fatalf("%+v row %d changed after its messages were poisoned:\n got %s\nwant %s", o, i, got, want[i])
			}
		}
	}
}

// churn runs the collector and reuses freed memory.
func churn() {
	var sink [][]byte
	for range 3 {
		runtime.GC()
		for range 1000 {
			b := make([]byte, 64+len(sink)%512)
			for i := range b {
				b[i] = 0x55
			}
			sink = append(sink, b)
		}
		sink = sink[:0]
	}
	runtime.KeepAlive(sink)
}

// TestSafeKeptValueRetainsOneChunk: safe-mode rows share 4 KiB chunks, so a
// value kept from one row pins that chunk and nothing more: not the chunks
// of the rows after it, not the decoder.
func TestSafeKeptValueRetainsOneChunk(t *testing.T) {
	p := mustPlan(t, decode.Options{}, fld("i", tInt64), fld("s", tString), fld("f", tFloat64))
	row := encRow(str("123456"), str("sixteen bytes!!!"), num(98.5))
	var kept string
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	func() {
		d := decode.NewRowDecoder(p, false)
		dest := make([]driver.Value, 3)
		for i := range 50_000 { // 2.4 MB of rows
			if err := d.Decode(row, dest); err != nil {
				t.Fatal(err)
			}
			if i == 25_000 {
				kept = dest[1].(string)
			}
		}
	}()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<10 {
		t.Errorf("one kept value retains %d bytes, want about one 4 KiB chunk", grew)
	}
	if kept != "sixteen bytes!!!" {
		t.Errorf("kept %q", kept)
	}
	runtime.KeepAlive(kept)
}

// TestSafeStringSurvivesRowGC keeps only a string scanned out of a row's
// slab; the slab must stay alive through it.
func TestSafeStringSurvivesRowGC(t *testing.T) {
	p := mustPlan(t, decode.Options{}, fld("i", tInt64), fld("s", tString), fld("b", tBytes))
	d := decode.NewRowDecoder(p, false)
	dest := make([]driver.Value, 3)
	var strs []string
	var bs [][]byte
	for i := range 1000 {
		if err := d.Decode(encRow(str(fmt.Sprint(i)), str(fmt.Sprintf("value-%06d", i)), str("AAECAwQFBgc=")), dest); err != nil {
			t.Fatal(err)
		}
		strs = append(strs, dest[1].(string))
		bs = append(bs, dest[2].([]byte))
		clear(dest)
	}
	churn()
	for i, s := range strs {
		if s != fmt.Sprintf("value-%06d", i) {
			t.Fatalf("string %d = %q", i, s)
		}
		if string(bs[i]) != "\x00\x01\x02\x03\x04\x05\x06\x07" {
			t.Fatalf("bytes %d = %q", i, bs[i])
		}
	}
}

// TestRawSlabReuseUnderGC is a regression test: raw mode reuses one
// pointer-free slab per decoder, and storing a header into it runs a write
// barrier that hands the overwritten word to the collector. When that word
// was a stale pointer into a freed span (here planted by decoded BYTES
// content) the runtime threw "found bad pointer in Go heap". The slab is now
// cleared before reuse.
func TestRawSlabReuseUnderGC(t *testing.T) {
	p := mustPlan(t, decode.Options{Raw: true}, fld("b", tBytes), fld("s", tString))
	d := decode.NewRowDecoder(p, false)
	// An address inside a large object that is then freed.
	x := make([]byte, 8<<20)
	stale := uintptr(unsafe.Pointer(&x[0])) + 4096
	x = nil
	runtime.GC()
	runtime.GC()
	// Row A's BYTES content (48 bytes) puts the stale address where row B
	// (empty BYTES) keeps its STRING header.
	content := make([]byte, 48)
	binary.LittleEndian.PutUint64(content[24:], uint64(stale))
	rowA := encRow(str(base64.StdEncoding.EncodeToString(content)), str("abc"))
	rowB := encRow(str(""), str("abc"))
	var done atomic.Bool
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for !done.Load() {
			runtime.GC()
		}
	}()
	dest := make([]driver.Value, 2)
	for range 300000 {
		if err := d.Decode(rowA, dest); err != nil {
			t.Fatal(err)
		}
		if err := d.Decode(rowB, dest); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	<-gcDone
}
