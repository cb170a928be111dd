package rows_test

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/randrs"
	"github.com/spannerfast/spannerfast/internal/wire"
	"github.com/spannerfast/spannerfast/rows"
)

var modes = []struct {
	name string
	opts rows.Options
}{
	{"safe", rows.Options{}},
	{"raw", rows.Options{Decode: decode.Options{Raw: true}}},
	{"raw+poison", rows.Options{Decode: decode.Options{Raw: true}, Poison: true}},
	{"safe+prefetch", rows.Options{Prefetch: 2}},
	{"raw+poison+prefetch", rows.Options{Decode: decode.Options{Raw: true}, Poison: true, Prefetch: 3}},
}

// threeCols is (id INT64, name STRING, tags ARRAY<STRING>).
var threeCols = md(fld("id", tInt64), fld("name", tString), fld("tags", arrayOf(tString)))

func TestMultiMessageResult(t *testing.T) {
	// Six rows over four messages: a row cut between messages, a STRING
	// chunked across a message boundary, an ARRAY chunked inside its last
	// element and again across an empty-value message.
	msgs := [][]byte{
		prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(
			str("1"), str("one"), list(str("a")),
			str("2"), str("tw")), ChunkedValue: true, ResumeToken: []byte("r1")}),
		prs(&spannerpb.PartialResultSet{Values: vals(
			str("o"), list(str("b"), str("c")),
			str("3")), ResumeToken: []byte("r2")}),
		prs(&spannerpb.PartialResultSet{Values: vals(
			str("three"), list(str("x"), str("lon")),
		), ChunkedValue: true}),
		prs(&spannerpb.PartialResultSet{Values: vals(list(str("g"), null())), ChunkedValue: false}),
		prs(&spannerpb.PartialResultSet{Values: vals(
			str("4"), null(), null(),
			str("5"), str(""), list(),
			str("6"), str("six"), list(str("z"))), Last: true}),
	}
	want := []string{
		`int64(1) | string("one") | []spanner.NullString{spanner.NullString{StringVal: string("a"), Valid: bool(true)}}`,
		`int64(2) | string("two") | []spanner.NullString{spanner.NullString{StringVal: string("b"), Valid: bool(true)}, spanner.NullString{StringVal: string("c"), Valid: bool(true)}}`,
		`int64(3) | string("three") | []spanner.NullString{spanner.NullString{StringVal: string("x"), Valid: bool(true)}, spanner.NullString{StringVal: string("long"), Valid: bool(true)}, spanner.NullString{StringVal: string(""), Valid: bool(false)}}`,
		`int64(4) | nil | []spanner.NullString(nil)`,
		`int64(5) | string("") | []spanner.NullString{}`,
		`int64(6) | string("six") | []spanner.NullString{spanner.NullString{StringVal: string("z"), Valid: bool(true)}}`,
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := newStream(t, msgs...)
			r, err := rows.Open(s, m.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			r.Close()
			if n := s.unreleased(); n != 0 {
				t.Errorf("%d frames not released after Close", n)
			}
		})
	}
}

// TestRandomStreams decodes random result sets of every type, cut into
// messages and chunks at random, and compares with decoding each row whole.
func TestRandomStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	chunked := 0
	defer func() {
		if chunked < 20 {
			t.Errorf("only %d chunked messages in 60 random streams", chunked)
		}
	}()
	for iter := range 60 {
		rs := randrs.ResultSet(r, randrs.Options{MaxRows: 12, MaxColumns: 8})
		var values []*structpb.Value
		for _, row := range rs.GetRows() {
			values = append(values, row.GetValues()...)
		}
		msgs := chunkStream(rs.GetMetadata(), values, r, iter%2 == 0)
		for _, b := range msgs {
			var m decode.Message
			if m.Scan(b) == nil && m.ChunkedValue {
				chunked++
			}
		}
		for _, m := range modes {
			want := expectedRows(t, rs.GetMetadata(), values, m.opts.Decode)
			s := newStream(t, msgs...)
			rw, err := rows.Open(s, m.opts)
			if err != nil {
				t.Fatalf("iteration %d %s: Open: %v", iter, m.name, err)
			}
			got, err := readAll(rw)
			if err != nil {
				t.Fatalf("iteration %d %s: %v", iter, m.name, err)
			}
			if len(got) != len(want) {
				t.Fatalf("iteration %d %s: %d rows, want %d", iter, m.name, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("iteration %d %s row %d:\n got %s\nwant %s", iter, m.name, i, got[i], want[i])
				}
			}
			rw.Close()
			if n := s.unreleased(); n != 0 {
				t.Fatalf("iteration %d %s: %d frames not released", iter, m.name, n)
			}
		}
	}
}

func TestLastStopsReading(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := newStream(t,
				prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(str("1"), str("a"), list())}),
				prs(&spannerpb.PartialResultSet{Values: vals(str("2"), str("b"), list()), Last: true}),
				[]byte("never read: not even a valid message \xff"),
			)
			r, err := rows.Open(s, m.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(r)
			if err != nil || len(got) != 2 {
				t.Fatalf("got %d rows, err %v; want 2 rows", len(got), err)
			}
			recvs, closes, given := s.stats()
			// Without prefetch, last=true ends reading. The prefetch reader
			// does not look inside frames and may take one more frame,
			// which is released unread.
			if m.opts.Prefetch == 0 && (given != 2 || recvs != 2) {
				t.Errorf("stream: %d Recv calls, %d frames; want 2 and 2 (last=true ends reading)", recvs, given)
			}
			// A reader goroutine stops at last=true; a plain stream is
			// ended by Close.
			if m.opts.Prefetch > 0 && closes == 0 {
				t.Error("prefetching stream not closed after last=true")
			}
			// io.EOF again, without touching the stream.
			if err := r.Next(make([]driver.Value, 3)); err != io.EOF {
				t.Errorf("Next after end: %v, want io.EOF", err)
			}
			r.Close()
			r.Close()
			if recvs2, closes2, _ := s.stats(); recvs2 != recvs || closes2 == 0 {
				t.Errorf("after Close: %d Recv calls (want %d), %d closes (want > 0)", recvs2, recvs, closes2)
			}
			if n := s.unreleased(); n != 0 {
				t.Errorf("%d frames not released", n)
			}
		})
	}
}

func TestStreamErrorMidway(t *testing.T) {
	boom := status.Error(codes.Unavailable, "connection reset")
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := newStream(t,
				prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(str("1"), str("a"), list(), str("2"), str("b"), list())}),
				prs(&spannerpb.PartialResultSet{Values: vals(str("3"), str("c"), list(), str("4"))}), // row 4 incomplete
			)
			s.err = boom
			r, err := rows.Open(s, m.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(r)
			if len(got) != 3 {
				t.Errorf("got %d rows before the error, want 3", len(got))
			}
			if !errors.Is(err, boom) || status.Code(err) != codes.Unavailable {
				t.Fatalf("err = %v (code %v), want the stream's Unavailable error", err, status.Code(err))
			}
			// The error sticks.
			if err2 := r.Next(make([]driver.Value, 3)); status.Code(err2) != codes.Unavailable {
				t.Errorf("second Next: %v", err2)
			}
			r.Close()
			if n := s.unreleased(); n != 0 {
				t.Errorf("%d frames not released", n)
			}
			if _, closes, _ := s.stats(); closes == 0 {
				t.Error("stream not closed")
			}
		})
	}
}

func TestStreamErrorThroughDatabaseSQL(t *testing.T) {
	boom := status.Error(codes.Aborted, "aborted midway")
	var s *fakeStream
	db := openDB(func() (rows.Stream, rows.Options) {
		s = newStream(t,
			prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(str("1"), str("a"), list(str("t")))}),
			prs(&spannerpb.PartialResultSet{Values: vals(str("2"), str("b"), null())}),
		)
		s.err = boom
		return s, rows.Options{}
	})
	defer db.Close()
	rs, err := db.Query("SELECT")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rs.Next() {
		var id int64
		var name string
		var tags []spanner.NullString
		if err := rs.Scan(&id, &name, &tags); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if status.Code(rs.Err()) != codes.Aborted {
		t.Errorf("rows.Err() = %v, want code Aborted", rs.Err())
	}
	if fmt.Sprint(ids) != "[1 2]" {
		t.Errorf("ids %v, want [1 2]", ids)
	}
	rs.Close()
	if n := s.unreleased(); n != 0 {
		t.Errorf("%d frames not released after database/sql closed the rows", n)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("first Recv fails", func(t *testing.T) {
		boom := status.Error(codes.PermissionDenied, "no")
		s := newStream(t)
		s.err, s.errAt = boom, 0
		_, err := rows.Open(s, rows.Options{})
		if !errors.Is(err, boom) || status.Code(err) != codes.PermissionDenied {
			t.Errorf("Open: %v, want the first Recv's error", err)
		}
		if _, closes, _ := s.stats(); closes == 0 {
			t.Error("stream not closed")
		}
	})
	t.Run("stream ends before metadata", func(t *testing.T) {
		s := newStream(t)
		_, err := rows.Open(s, rows.Options{})
		if err == nil || err == io.EOF || status.Code(err) == codes.Unknown {
			t.Errorf("Open: %v, want an error with a gRPC code", err)
		}
	})
	bad := map[string][]byte{
		"no metadata":       prs(&spannerpb.PartialResultSet{Values: vals(str("1"))}),
		"broken message":    {0x12, 0x09, 0x01},
		"unsupported type":  prs(&spannerpb.PartialResultSet{Metadata: md(fld("x", tc(99)))}),
		"chunk, no values":  prs(&spannerpb.PartialResultSet{Metadata: threeCols, ChunkedValue: true}),
		"garbage row type":  {0x0a, 0x04, 0x0a, 0x02, 0x0a, 0x05},
		"array of no type":  prs(&spannerpb.PartialResultSet{Metadata: md(fld("a", &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY}))}),
		"empty first frame": {},
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			s := newStream(t, b)
			r, err := rows.Open(s, rows.Options{})
			if err == nil {
				r.Close()
				t.Fatal("Open succeeded")
			}
			if c := status.Code(err); c == codes.Unknown || c == codes.OK {
				t.Errorf("Open: %v has code %v", err, c)
			}
			if _, closes, _ := s.stats(); closes == 0 {
				t.Error("stream not closed")
			}
			if n := s.unreleased(); n != 0 {
				t.Errorf("%d frames not released", n)
			}
		})
	}
}

// TestProtocolErrors: a stream that breaks the protocol after the metadata
// fails Next with an ErrMalformed error carrying a gRPC code, after the
// complete rows before it.
func TestProtocolErrors(t *testing.T) {
	first := func(vs ...*structpb.Value) []byte {
		return prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: append(vals(str("1"), str("a"), list()), vs...)})
	}
	cases := map[string][][]byte{
		"ends inside a chunk": {prs(&spannerpb.PartialResultSet{Metadata: threeCols,
			Values: vals(str("1"), str("a"), list(), str("2"), str("b")), ChunkedValue: true})},
		"ends inside a row": {first(str("2"))},
		"number chunk": {
			prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(str("1"), str("a"), list(), num(2)), ChunkedValue: true}),
			prs(&spannerpb.PartialResultSet{Values: vals(num(3), str("b"), list())}),
		},
		"kind mismatch": {
			prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(str("1"), str("a"), list(), str("2"), str("b")), ChunkedValue: true}),
			prs(&spannerpb.PartialResultSet{Values: vals(list(str("c")), list())}),
		},
		"broken second message": {first(), {0x12, 0x7f, 0x01}},
		"bad value":             {first(str("x"), str("b"), list())},
	}
	for name, msgs := range cases {
		for _, m := range modes {
			t.Run(name+"/"+m.name, func(t *testing.T) {
				s := newStream(t, msgs...)
				r, err := rows.Open(s, m.opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := readAll(r)
				if len(got) != 1 {
					t.Errorf("%d rows before the error, want 1", len(got))
				}
				if !errors.Is(err, decode.ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				if c := status.Code(err); c != codes.FailedPrecondition && c != codes.Internal {
					t.Errorf("code %v, want FailedPrecondition or Internal", c)
				}
				if err2 := r.Next(make([]driver.Value, 3)); err2 != err {
					t.Errorf("error not sticky: %v", err2)
				}
				r.Close()
				if n := s.unreleased(); n != 0 {
					t.Errorf("%d frames not released", n)
				}
			})
		}
	}
}

func TestCloseReleasesEveryFrame(t *testing.T) {
	// One row per message, 20 messages.
	msgs := [][]byte{prs(&spannerpb.PartialResultSet{Metadata: threeCols})}
	for i := range 20 {
		msgs = append(msgs, prs(&spannerpb.PartialResultSet{Values: vals(str(fmt.Sprint(i)), str("n"), list(str("t")))}))
	}
	for _, m := range modes {
		for _, readRows := range []int{0, 1, 5, 20, 21} {
			t.Run(fmt.Sprintf("%s/after %d rows", m.name, readRows), func(t *testing.T) {
				s := newStream(t, msgs...)
				r, err := rows.Open(s, m.opts)
				if err != nil {
					t.Fatal(err)
				}
				dest := make([]driver.Value, 3)
				for i := 0; i < readRows; i++ {
					if err := r.Next(dest); err != nil {
						if i == 20 && err == io.EOF {
							break
						}
						t.Fatal(err)
					}
				}
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
				if err := r.Close(); err != nil {
					t.Fatalf("second Close: %v", err)
				}
				if n := s.unreleased(); n != 0 {
					t.Errorf("%d of %d frames not released", n, len(s.given))
				}
				if _, closes, _ := s.stats(); closes == 0 {
					t.Error("stream not closed")
				}
				if err := r.Next(dest); err != io.EOF {
					t.Errorf("Next after Close: %v, want io.EOF", err)
				}
			})
		}
	}
}

// TestSafeModeReleasesEarly: in safe mode a frame is released once the rows
// read from it are decoded, so a long result holds few frames at a time.
func TestSafeModeReleasesEarly(t *testing.T) {
	msgs := [][]byte{prs(&spannerpb.PartialResultSet{Metadata: threeCols})}
	for i := range 50 {
		msgs = append(msgs, prs(&spannerpb.PartialResultSet{Values: vals(str(fmt.Sprint(i)), str("n"), list())}))
	}
	for _, m := range modes[:3] { // without prefetch: counts are deterministic
		s := newStream(t, msgs...)
		r, err := rows.Open(s, m.opts)
		if err != nil {
			t.Fatal(err)
		}
		dest := make([]driver.Value, 3)
		maxHeld := 0
		for r.Next(dest) == nil {
			maxHeld = max(maxHeld, s.unreleased())
		}
		if maxHeld > 3 {
			t.Errorf("%s: up to %d frames held at once, want at most 3", m.name, maxHeld)
		}
		r.Close()
	}
}

func TestZeroColumnResult(t *testing.T) {
	stats := &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 7}}
	cases := map[string][][]byte{
		"one message": {prs(&spannerpb.PartialResultSet{Metadata: md(), Stats: stats, Last: true})},
		"stats later": {
			prs(&spannerpb.PartialResultSet{Metadata: md(), ResumeToken: []byte("x")}),
			prs(&spannerpb.PartialResultSet{Stats: stats}),
		},
	}
	for name, msgs := range cases {
		for _, m := range modes {
			t.Run(name+"/"+m.name, func(t *testing.T) {
				s := newStream(t, msgs...)
				r, err := rows.Open(s, m.opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Columns()) != 0 {
					t.Fatalf("columns %v", r.Columns())
				}
				if err := r.Next(nil); err != io.EOF {
					t.Fatalf("Next: %v, want io.EOF", err)
				}
				if err := r.Next(nil); err != io.EOF {
					t.Fatalf("second Next: %v, want io.EOF", err)
				}
				if !bytes.Equal(r.Stats(), prs(&spannerpb.PartialResultSet{Stats: stats})[2:]) {
					t.Errorf("Stats() = %x", r.Stats())
				}
				r.Close()
				if n := s.unreleased(); n != 0 {
					t.Errorf("%d frames not released", n)
				}
			})
		}
	}
}

func TestTransactionID(t *testing.T) {
	m := md(fld("a", tInt64))
	m.Transaction = &spannerpb.Transaction{Id: []byte("tx-42")}
	s := newStream(t, prs(&spannerpb.PartialResultSet{Metadata: m, Values: vals(str("1"))}))
	r, err := rows.Open(s, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if string(r.TransactionID()) != "tx-42" {
		t.Errorf("TransactionID = %q", r.TransactionID())
	}
	// It is a copy: releasing the frames does not change it.
	r.Close()
	if string(r.TransactionID()) != "tx-42" {
		t.Errorf("TransactionID after Close = %q", r.TransactionID())
	}
}

func TestColumnTypes(t *testing.T) {
	st := &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		fld("x", tInt64), fld("y", tString)}}}
	m := md(fld("i", tInt64), fld("s", tString), fld("ai", arrayOf(tInt64)), fld("ts", tTimestamp),
		fld("by", tBytes), fld("ast", arrayOf(st)), fld("n", tNumeric), fld("d", tDate), fld("j", tJSON))
	want := []struct {
		name, dbType string
		scan         reflect.Type
	}{
		{"i", "INT64", reflect.TypeFor[sql.NullInt64]()},
		{"s", "STRING", reflect.TypeFor[sql.NullString]()},
		{"ai", "ARRAY<INT64>", reflect.TypeFor[[]spanner.NullInt64]()},
		{"ts", "TIMESTAMP", reflect.TypeFor[sql.NullTime]()},
		{"by", "BYTES", reflect.TypeFor[[]byte]()},
		{"ast", "ARRAY<STRUCT<x INT64, y STRING>>", reflect.TypeFor[[]spanner.NullRow]()},
		{"n", "NUMERIC", reflect.TypeFor[spanner.NullNumeric]()},
		{"d", "DATE", reflect.TypeFor[sql.NullString]()}, // Next gives the text
		{"j", "JSON", reflect.TypeFor[spanner.NullJSON]()},
	}
	for _, mode := range modes[:2] {
		s := newStream(t, prs(&spannerpb.PartialResultSet{Metadata: m}))
		r, err := rows.Open(s, mode.opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if r.Columns()[i] != w.name {
				t.Errorf("column %d name %q, want %q", i, r.Columns()[i], w.name)
			}
			if got := r.ColumnTypeDatabaseTypeName(i); got != w.dbType {
				t.Errorf("column %d type name %q, want %q", i, got, w.dbType)
			}
			if got := r.ColumnTypeScanType(i); got != w.scan {
				t.Errorf("%s: column %d scan type %v, want %v", mode.name, i, got, w.scan)
			}
			if nullable, ok := r.ColumnTypeNullable(i); !nullable || !ok {
				t.Errorf("column %d nullable = %v, %v; want true, true", i, nullable, ok)
			}
		}
		r.Close()
	}
	// Through database/sql.
	db := openDB(func() (rows.Stream, rows.Options) {
		return newStream(t, prs(&spannerpb.PartialResultSet{Metadata: m})), rows.Options{}
	})
	defer db.Close()
	rs, err := db.Query("SELECT")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cts, err := rs.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	for i, ct := range cts {
		if ct.DatabaseTypeName() != want[i].dbType || ct.ScanType() != want[i].scan {
			t.Errorf("ColumnTypes()[%d] = %s %v", i, ct.DatabaseTypeName(), ct.ScanType())
		}
	}
}

// TestRawValuesArePoisoned: in raw mode with Poison, a STRING value kept
// past its lifetime reads 0xAA once its frame is released, while a copy
// taken in time (what Scan makes) is intact.
func TestRawValuesArePoisoned(t *testing.T) {
	msgs := [][]byte{prs(&spannerpb.PartialResultSet{Metadata: threeCols})}
	for i := range 6 {
		msgs = append(msgs, prs(&spannerpb.PartialResultSet{Values: vals(str(fmt.Sprint(i)), str(fmt.Sprintf("name-%d", i)), list())}))
	}
	s := newStream(t, msgs...)
	r, err := rows.Open(s, rows.Options{Decode: decode.Options{Raw: true}, Poison: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dest := make([]driver.Value, 3)
	if err := r.Next(dest); err != nil {
		t.Fatal(err)
	}
	kept, ok := dest[1].([]byte) // raw STRING: aliases the frame
	if !ok {
		t.Fatalf("raw STRING is %T, want []byte", dest[1])
	}
	copied := string(kept)
	if copied != "name-0" {
		t.Fatalf("first row name %q", copied)
	}
	firstFrame := s.given[1]
	calls := 0
	for firstFrame.Data != nil {
		if err := r.Next(dest); err != nil {
			t.Fatalf("frame of row 0 still held at %v", err)
		}
		calls++
	}
	if calls > 2 {
		t.Errorf("frame of row 0 released only after %d more calls to Next", calls)
	}
	if !bytes.Equal(kept, bytes.Repeat([]byte{wire.PoisonByte}, len(kept))) {
		t.Errorf("kept raw value reads %q after its frame was released, want the 0xAA poison", kept)
	}
	if copied != "name-0" {
		t.Errorf("copy changed: %q", copied)
	}
}

// TestSafeValuesSurvivePoison: safe-mode values kept from every row stay
// intact while their frames are released with poison.
func TestSafeValuesSurvivePoison(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	m := md(fld("id", tInt64), fld("s", tString), fld("by", tBytes), fld("d", tDate), fld("ts", tTimestamp),
		fld("n", tNumeric), fld("j", tJSON), fld("as", arrayOf(tString)), fld("f", tFloat64), fld("b", tBool))
	var values []*structpb.Value
	for i := range 200 {
		s := fmt.Sprintf("value %d %s", i, strings.Repeat("x", i%50))
		values = append(values, str(fmt.Sprint(i)), str(s), str("AAECAw=="), str("2024-02-29"),
			str("2024-02-29T12:00:00.123456789Z"), str("1.5"), str(`{"k":"v"}`), list(str(s), null()), num(0.5), structpb.NewBoolValue(true))
	}
	msgs := chunkStream(m, values, r, true)
	want := expectedRows(t, m, values, decode.Options{})
	s := newStream(t, msgs...)
	rw, err := rows.Open(s, rows.Options{Poison: true})
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]driver.Value
	dest := make([]driver.Value, 10)
	for rw.Next(dest) == nil {
		kept = append(kept, append([]driver.Value(nil), dest...))
	}
	rw.Close()
	if n := s.unreleased(); n != 0 {
		t.Fatalf("%d frames not released", n)
	}
	for _, b := range s.bufs {
		if len(b) > 0 && b[0] != wire.PoisonByte {
			t.Fatal("released frames were not poisoned")
		}
	}
	if len(kept) != len(want) {
		t.Fatalf("%d rows, want %d", len(kept), len(want))
	}
	p := rw.Plan()
	for i := range kept {
		if got := canonRow(p, kept[i]); got != want[i] {
			t.Fatalf("row %d changed after its frames were poisoned:\n got %s\nwant %s", i, got, want[i])
		}
	}
}

// TestScanThroughDatabaseSQL reads a chunked multi-message result with
// database/sql in both modes.
func TestScanThroughDatabaseSQL(t *testing.T) {
	m := md(fld("id", tInt64), fld("name", tString), fld("at", tTimestamp), fld("data", tBytes), fld("d", tDate))
	msgs := [][]byte{
		prs(&spannerpb.PartialResultSet{Metadata: m, Values: vals(str("1"), str("al")), ChunkedValue: true}),
		prs(&spannerpb.PartialResultSet{Values: vals(str("ice"), str("2024-02-29T00:00:00Z"), str("AQ")), ChunkedValue: true}),
		prs(&spannerpb.PartialResultSet{Values: vals(str("ID"), str("2024-02-29"), str("2"), str("bob")), ChunkedValue: true}),
		prs(&spannerpb.PartialResultSet{Values: vals(str("by"), null(), null(), null())}),
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			var s *fakeStream
			db := openDB(func() (rows.Stream, rows.Options) { s = newStream(t, msgs...); return s, mode.opts })
			defer db.Close()
			rs, err := db.Query("SELECT")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rs.Next() {
				var id int64
				var name string
				var at sql.NullTime
				var data []byte
				var d spanner.NullDate
				if err := rs.Scan(&id, &name, &at, &data, &d); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%d %s %v %s %v %v", id, name, at.Time.Format(time.RFC3339), data, at.Valid, d))
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			want := "1 alice 2024-02-29T00:00:00Z \x01\x02\x03 true 2024-02-29|2 bobby 0001-01-01T00:00:00Z  false <null>"
			if strings.Join(got, "|") != want {
				t.Errorf("got  %q\nwant %q", strings.Join(got, "|"), want)
			}
			if n := s.unreleased(); n != 0 {
				t.Errorf("%d frames not released", n)
			}
		})
	}
}
