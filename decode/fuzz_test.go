package decode_test

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

// Seeds for every fuzzer come from the unit tests' inputs.

func seedValues() [][]byte {
	var out [][]byte
	for _, c := range allValueCases() {
		out = append(out, enc(c.in))
	}
	for _, c := range allBadCases() {
		out = append(out, c.in)
	}
	return out
}

func seedStreams() [][][]byte {
	var out [][][]byte
	for _, fx := range fixtures {
		var msgs [][]byte
		for _, m := range fx.msgs() {
			msgs = append(msgs, prs(m))
		}
		out = append(out, msgs)
	}
	out = append(out,
		chunkMsgs(vals(str("ab")), vals(str("cd")), vals(str("ef"))),
		chunkMsgs(vals(list(str("ab"), str("c"))), vals(list(str("de"), str("f")))),
		chunkMsgs(vals(list(list(str("a")), str("b"))), vals(list(str("c"), num(1)))),
		chunkMsgs(vals(num(1)), vals(num(2))),
		chunkMsgs(vals(str("a")), vals(list())),
		chunkMsgs(vals(list(unset())), vals(list())),
		[][]byte{prs(&spannerpb.PartialResultSet{ChunkedValue: true})},
	)
	return out
}

func FuzzMessageScan(f *testing.F) {
	for _, s := range seedStreams() {
		for _, m := range s {
			f.Add(m)
		}
	}
	f.Add([]byte{0x12, 0x05, 0x01})
	f.Add([]byte{0x4a, 0x00, 0x18, 0x01}) // cache_update (field 10) and chunked_value
	f.Fuzz(func(t *testing.T, b []byte) {
		var m decode.Message
		err := m.Scan(b)
		var ref spannerpb.PartialResultSet
		refErr := proto.Unmarshal(b, &ref)
		if err != nil {
			if !errors.Is(err, decode.ErrMalformed) {
				t.Fatalf("error %v does not match ErrMalformed", err)
			}
			// The official decoder may accept what Scan rejects only for
			// a chunk with no values.
			if refErr == nil && !(ref.ChunkedValue && len(ref.Values) == 0) {
				t.Fatalf("Scan failed (%v) on a message proto.Unmarshal accepts", err)
			}
			return
		}
		if m.ChunkedValue && m.NumValues == 0 {
			t.Fatal("chunked message without values accepted")
		}
		if refErr == nil {
			if m.NumValues != len(ref.Values) || m.ChunkedValue != ref.ChunkedValue || m.Last != ref.Last ||
				!bytes.Equal(m.ResumeToken, ref.ResumeToken) {
				t.Fatalf("Scan disagrees with proto.Unmarshal: %d values chunked=%v last=%v, want %d %v %v",
					m.NumValues, m.ChunkedValue, m.Last, len(ref.Values), ref.ChunkedValue, ref.Last)
			}
			// Compare values by meaning: a value written with unknown or
			// misplaced fields re-marshals to other bytes of the same size.
			for i, v := range m.AppendValues(nil) {
				var got structpb.Value
				if err := proto.Unmarshal(v, &got); err != nil || !proto.Equal(&got, ref.Values[i]) {
					t.Fatalf("value %d: %x is not what proto.Unmarshal found (%v)", i, v, err)
				}
			}
		}
		// Scanning again into a used Message gives the same result.
		n := m.NumValues
		if err := m.Scan(b); err != nil || m.NumValues != n {
			t.Fatalf("second Scan: %v, %d values", err, m.NumValues)
		}
	})
}

func FuzzParseValue(f *testing.F) {
	for _, v := range seedValues() {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decode.ParseValue(b)
		var ref structpb.Value
		refErr := proto.Unmarshal(b, &ref)
		if err != nil {
			if !errors.Is(err, decode.ErrMalformed) {
				t.Fatalf("error %v does not match ErrMalformed", err)
			}
			if refErr == nil {
				t.Fatalf("ParseValue failed (%v) on bytes proto.Unmarshal accepts", err)
			}
			return
		}
		if refErr == nil {
			want := map[string]decode.Kind{
				"*structpb.Value_NullValue": decode.KindNull, "*structpb.Value_NumberValue": decode.KindNumber,
				"*structpb.Value_StringValue": decode.KindString, "*structpb.Value_BoolValue": decode.KindBool,
				"*structpb.Value_StructValue": decode.KindStruct, "*structpb.Value_ListValue": decode.KindList,
			}[kindName(&ref)]
			if v.Kind != want {
				t.Fatalf("kind %v, proto.Unmarshal says %v", v.Kind, want)
			}
			switch v.Kind {
			case decode.KindString:
				if string(v.Bytes) != ref.GetStringValue() {
					t.Fatalf("string %q, want %q", v.Bytes, ref.GetStringValue())
				}
			case decode.KindBool:
				if v.Bool != ref.GetBoolValue() {
					t.Fatal("bool differs")
				}
			}
		}
		walk(t, v, 0)
	})
}

func kindName(v *structpb.Value) string {
	switch v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return "*structpb.Value_NullValue"
	case *structpb.Value_NumberValue:
		return "*structpb.Value_NumberValue"
	case *structpb.Value_StringValue:
		return "*structpb.Value_StringValue"
	case *structpb.Value_BoolValue:
		return "*structpb.Value_BoolValue"
	case *structpb.Value_StructValue:
		return "*structpb.Value_StructValue"
	case *structpb.Value_ListValue:
		return "*structpb.Value_ListValue"
	}
	return ""
}

// walk visits the elements of lists, as the decoders do.
func walk(t *testing.T, v decode.Value, depth int) {
	if v.Kind != decode.KindList || depth > 50 {
		return
	}
	n, err := decode.Count(v.Bytes)
	it := decode.Elements(v.Bytes)
	seen := 0
	for e, ok := it.Next(); ok; e, ok = it.Next() {
		seen++
		if ev, err := decode.ParseValue(e); err == nil {
			walk(t, ev, depth+1)
		}
	}
	if (err == nil) != (it.Err() == nil) || (err == nil && n != seen) {
		t.Fatalf("Count = %d, %v; iteration saw %d, %v", n, err, seen, it.Err())
	}
}

// ---- FuzzMerger ----

// The fuzz input is a sequence of messages. Each starts with a header byte:
// bits 0-1 the number of values, bit 2 chunked_value, bit 3 "raw": the
// message is the next uvarint-prefixed bytes as they are. Otherwise every
// value is uvarint-prefixed bytes of an encoded google.protobuf.Value.

func fuzzMergerInput(msgs []*spannerpb.PartialResultSet) []byte {
	var b []byte
	for _, m := range msgs {
		if len(m.Values) > 3 || m.Metadata != nil {
			b = append(b, 8)
			b = binary.AppendUvarint(b, uint64(len(prs(m))))
			b = append(b, prs(m)...)
			continue
		}
		h := byte(len(m.Values))
		if m.ChunkedValue {
			h |= 4
		}
		b = append(b, h)
		for _, v := range m.Values {
			e := enc(v)
			b = binary.AppendUvarint(b, uint64(len(e)))
			b = append(b, e...)
		}
	}
	return b
}

func next(data []byte) (chunk, rest []byte, ok bool) {
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(len(data)-k) {
		return nil, nil, false
	}
	return data[k : k+int(n)], data[k+int(n):], true
}

// refMerge is protocol.md's merge rule on decoded values, the oracle for the
// Merger. Like the Merger, it rejects a value with no kind anywhere inside the
// lists being merged.
func refMerge(a, b *structpb.Value) (*structpb.Value, error) {
	if hasUnset(a) || hasUnset(b) {
		return nil, errors.New("unset")
	}
	switch ak := a.GetKind().(type) {
	case *structpb.Value_StringValue:
		if bk, ok := b.GetKind().(*structpb.Value_StringValue); ok {
			return str(ak.StringValue + bk.StringValue), nil
		}
	case *structpb.Value_ListValue:
		bk, ok := b.GetKind().(*structpb.Value_ListValue)
		if !ok {
			return nil, errors.New("mismatch")
		}
		l, r := ak.ListValue.GetValues(), bk.ListValue.GetValues()
		if len(r) == 0 {
			return a, nil
		}
		if len(l) == 0 {
			return b, nil
		}
		out := append([]*structpb.Value(nil), l...)
		switch out[len(out)-1].GetKind().(type) {
		case *structpb.Value_StringValue, *structpb.Value_ListValue:
			m, err := refMerge(out[len(out)-1], r[0])
			if err != nil {
				return nil, err
			}
			out[len(out)-1] = m
			r = r[1:]
		}
		return list(append(out, r...)...), nil
	}
	return nil, errors.New("not mergeable")
}

func hasUnset(v *structpb.Value) bool {
	switch k := v.GetKind().(type) {
	case nil:
		return true
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.GetValues() {
			if hasUnset(e) {
				return true
			}
		}
	}
	return false
}

func FuzzMerger(f *testing.F) {
	for _, s := range seedStreams() {
		var msgs []*spannerpb.PartialResultSet
		for _, b := range s {
			var m spannerpb.PartialResultSet
			if err := proto.Unmarshal(b, &m); err == nil {
				msgs = append(msgs, &m)
			}
		}
		f.Add(fuzzMergerInput(msgs))
	}
	unmarshal := proto.UnmarshalOptions{DiscardUnknown: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs [][]byte
		oracle := true
		var refMsgs [][]*structpb.Value
		var refChunked []bool
		for len(data) > 0 && len(msgs) < 64 {
			h := data[0]
			data = data[1:]
			if h&8 != 0 {
				m, rest, ok := next(data)
				if !ok {
					break
				}
				msgs, data, oracle = append(msgs, m), rest, false
				continue
			}
			var msg []byte
			var refVals []*structpb.Value
			for range h & 3 {
				v, rest, ok := next(data)
				if !ok {
					break
				}
				data = rest
				var pv structpb.Value
				if err := unmarshal.Unmarshal(v, &pv); err == nil {
					v = mustMarshal(&pv) // canonical form: the oracle sees the same value
					refVals = append(refVals, &pv)
				} else {
					oracle = false
				}
				msg = protowire.AppendTag(msg, 2, protowire.BytesType)
				msg = protowire.AppendBytes(msg, v)
			}
			if h&4 != 0 {
				msg = protowire.AppendTag(msg, 3, protowire.VarintType)
				msg = protowire.AppendVarint(msg, 1)
			}
			msgs = append(msgs, msg)
			refMsgs = append(refMsgs, refVals)
			refChunked = append(refChunked, h&4 != 0)
		}
		got, err := mergeAll(msgs)
		if err != nil && !errors.Is(err, decode.ErrMalformed) {
			t.Fatalf("error %v does not match ErrMalformed", err)
		}
		// Complete values pass through unparsed (the row decoder checks
		// them), so only the oracle can judge the output.
		if !oracle {
			return
		}
		// The oracle.
		var want []*structpb.Value
		var pending *structpb.Value
		var refErr error
	msgLoop:
		for i, vs := range refMsgs {
			if refChunked[i] && len(vs) == 0 {
				refErr = errors.New("chunk without values")
				break
			}
			for j, v := range vs {
				if pending != nil {
					m, err := refMerge(pending, v)
					if err != nil {
						refErr = err
						break msgLoop
					}
					v, pending = m, nil
				}
				if refChunked[i] && j == len(vs)-1 {
					pending = v
					continue
				}
				want = append(want, v)
			}
		}
		if refErr == nil && pending != nil {
			refErr = errors.New("ends in chunk")
		}
		if (err == nil) != (refErr == nil) {
			t.Fatalf("Merger error %v, oracle error %v", err, refErr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d values, oracle %d", len(got), len(want))
		}
		for i := range got {
			var g structpb.Value
			if err := unmarshal.Unmarshal(got[i], &g); err != nil {
				t.Fatalf("value %d: %v", i, err)
			}
			if !proto.Equal(&g, want[i]) {
				t.Fatalf("value %d: got %s, oracle %s", i, pbCanon(&g), pbCanon(want[i]))
			}
		}
	})
}

// ---- FuzzDecodeRow ----

// fuzzCols is a plan of every column type.
var fuzzCols = func() []*spannerpb.StructType_Field {
	var cols []*spannerpb.StructType_Field
	for i, t := range allTypes {
		cols = append(cols, fld("c"+decode.TypeName(t)+string(rune('a'+i%26)), t))
	}
	return cols
}()

var fuzzRowType = rowType(fuzzCols...)

var fuzzNulls = func() [][]byte {
	row := make([][]byte, len(fuzzCols))
	for i := range row {
		row[i] = enc(null())
	}
	return row
}()

var fuzzOptions = []decode.Options{
	{}, {NativeArrays: true, NumericAsString: true},
}

// FuzzDecodeRow decodes a row of every type in which column col holds a and
// column col+1 holds b (arbitrary bytes) and every other column is NULL, in
// safe and raw mode. Neither may panic; they must agree.
func FuzzDecodeRow(f *testing.F) {
	vs := seedValues()
	for i, v := range vs {
		f.Add(uint8(i), v, vs[(i*7+3)%len(vs)])
	}
	nullEnc := enc(null())
	f.Fuzz(func(t *testing.T, col uint8, a, b []byte) {
		n := len(fuzzCols)
		i := int(col) % n
		row := make([][]byte, n)
		for k := range row {
			row[k] = nullEnc
		}
		row[i], row[(i+1)%n] = a, b
		for _, base := range fuzzOptions {
			cols := []int{i, (i + 1) % n}
			safe := decodeFuzzRow(t, base, false, row, cols)
			ro := base
			ro.Raw = true
			raw := decodeFuzzRow(t, ro, true, row, cols)
			if (safe.err == nil) != (raw.err == nil) {
				t.Fatalf("%+v: safe error %v, raw error %v", base, safe.err, raw.err)
			}
			if safe.err != nil {
				var ce *decode.ColumnError
				if !errors.As(safe.err, &ce) || !(errors.Is(safe.err, decode.ErrMalformed) || isNullElement(safe.err)) {
					t.Fatalf("error %v is not a ColumnError matching ErrMalformed or a NULL native element", safe.err)
				}
				if ce.Index != i && ce.Index != (i+1)%n {
					t.Fatalf("error names column %d, the data was in %d and %d", ce.Index, i, (i+1)%n)
				}
				continue
			}
			for k := range safe.vals {
				if safe.vals[k] != raw.vals[k] {
					t.Fatalf("%+v column %d: safe %s, raw %s", base, k, safe.vals[k], raw.vals[k])
				}
			}
		}
		for _, o := range fuzzOptions {
			for _, raw := range []bool{false, true} {
				o.Raw = raw
				checkDecodeNext(t, o, fuzzCols[i], fuzzCols[(i+1)%n], a, b)
			}
		}
	})
}

// checkDecodeNext decodes the row [a, b] of the columns x and y through
// RowDecoder.DecodeNext, from messages that hold it in the forms a server
// may write, and requires the values (or the failure) Decode gives.
func checkDecodeNext(t *testing.T, o decode.Options, x, y *spannerpb.StructType_Field, a, b []byte) {
	t.Helper()
	p, err := decode.PlanFor(rowType(x, y), o)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]driver.Value, 2)
	wantErr := decode.NewRowDecoder(p, o.Raw).Decode([][]byte{a, b}, want)
	field := func(v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), v)
	}
	row := append(field(a), field(b)...)
	chunked := []byte{0x18, 0x01} // chunked_value: the last value continues
	msgs := []struct {
		b    []byte
		left int // values left after the row
	}{
		{row, 0},
		// A resume token between the values, as a field order the
		// protocol allows.
		{append(append(field(a), 0x22, 0x01, 0x07), field(b)...), 0},
		// The next row's first value continues in the next message: the
		// row before it is whole.
		{append(append(append([]byte(nil), row...), field(enc(structpb.NewStringValue("x")))...), chunked...), 1},
	}
	for k, c := range msgs {
		var m decode.Merger
		if err := m.Load(c.b); err != nil {
			t.Fatalf("message %d: %v", k, err)
		}
		d := decode.NewRowDecoder(p, o.Raw)
		got := make([]driver.Value, 2)
		ok, err := d.DecodeNext(&m, got)
		if !ok {
			t.Fatalf("message %d: DecodeNext did not take a whole row", k)
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%+v message %d: DecodeNext error %v, Decode error %v", o, k, err, wantErr)
		}
		if err != nil {
			if err.Error() != wantErr.Error() {
				t.Fatalf("%+v message %d: DecodeNext error %q, Decode error %q", o, k, err, wantErr)
			}
			continue
		}
		if m.Remaining() != c.left {
			t.Fatalf("message %d: %d values left after the row, want %d", k, m.Remaining(), c.left)
		}
		for i := range got {
			if canon(got[i]) != canon(want[i]) {
				t.Fatalf("%+v message %d column %d: DecodeNext %s, Decode %s", o, k, i, canon(got[i]), canon(want[i]))
			}
		}
	}
	// A row whose last value a chunk continues is not whole: DecodeNext
	// leaves it to the Merger and takes nothing.
	var m decode.Merger
	if err := m.Load(append(append([]byte(nil), row...), chunked...)); err != nil {
		t.Fatal(err)
	}
	if ok, err := decode.NewRowDecoder(p, o.Raw).DecodeNext(&m, make([]driver.Value, 2)); ok || err != nil || m.Remaining() != 2 {
		t.Fatalf("row ending in a chunk: DecodeNext took it (%v, %v, %d values left)", ok, err, m.Remaining())
	}
}

// isNullElement reports a NULL element of a native array: FailedPrecondition,
// not malformed data.
func isNullElement(err error) bool {
	var ne *decode.NullElementError
	return errors.As(err, &ne) && status.Code(err) == codes.FailedPrecondition && !errors.Is(err, decode.ErrMalformed)
}

type fuzzResult struct {
	vals []string
	err  error
}

// decodeFuzzRow decodes row and renders the columns cols.
func decodeFuzzRow(t *testing.T, o decode.Options, poison bool, row [][]byte, cols []int) fuzzResult {
	p, err := decode.PlanFor(fuzzRowType, o)
	if err != nil {
		t.Fatal(err)
	}
	d := decode.NewRowDecoder(p, poison)
	dest := make([]driver.Value, len(row))
	// Decode a row of NULLs first so that raw mode reuses its slab.
	if err := d.Decode(fuzzNulls, dest); err != nil {
		t.Fatalf("row of NULLs: %v", err)
	}
	var r fuzzResult
	if r.err = d.Decode(row, dest); r.err != nil {
		return r
	}
	for _, i := range cols {
		v := dest[i]
		if o.Raw {
			v = rawToSafe(p.Columns[i].Type, o, v)
		}
		r.vals = append(r.vals, canon(v))
	}
	return r
}

// rawToSafe converts a raw-mode value to what safe mode returns.
func rawToSafe(t *spannerpb.Type, o decode.Options, v driver.Value) driver.Value {
	b, ok := v.([]byte)
	if !ok {
		return v
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_STRING, spannerpb.TypeCode_DATE, spannerpb.TypeCode_UUID:
		return string(b)
	case spannerpb.TypeCode_NUMERIC:
		if o.NumericAsString || t.GetTypeAnnotation() == spannerpb.TypeAnnotationCode_PG_NUMERIC {
			return string(b)
		}
	}
	return v
}

// FuzzParseDecimalInt64 holds the INT64 text parser to strconv.ParseInt.
func FuzzParseDecimalInt64(f *testing.F) {
	for _, s := range []string{"0", "-0", "+7", "12345678", "123456789", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "18446744073709551615", "99999999999999999999",
		"00000000000000000000001", "1234567/", "12345678:", "", "-", "1e3", " 1", "１"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		got, ok := decode.ParseDecimalInt64(s)
		want, err := strconv.ParseInt(string(s), 10, 64)
		wantOK := err == nil && len(s) <= 20
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("%q: got %d, %v; strconv %d, %v", s, got, ok, want, err)
		}
	})
}

// FuzzDate holds DATE decoding to civil.ParseDate: a value is accepted, as
// its own text, exactly when it is a valid "YYYY-MM-DD" date of years
// 0001-9999, in both modes.
func FuzzDate(f *testing.F) {
	for _, s := range []string{"2024-02-29", "2023-02-29", "0001-01-01", "9999-12-31", "0000-01-01", "2024-1-01",
		"20240101", "2024-01-01T00:00:00Z", "+202-01-01", "2024-04-31", "2024-13-01", "", "２０２４-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := civil.ParseDate(s)
		wantOK := err == nil && len(s) == 10 && d.Year >= 1 && d.String() == s
		// string_value (field 3), written by hand: the text may be any bytes.
		in := protowire.AppendString(protowire.AppendTag(nil, 3, protowire.BytesType), s)
		for _, raw := range []bool{false, true} {
			dec := decode.NewRowDecoder(mustPlan(t, decode.Options{Raw: raw}, fld("d", tDate)), false)
			dest := make([]driver.Value, 1)
			err := dec.Decode([][]byte{in}, dest)
			if (err == nil) != wantOK {
				t.Fatalf("raw=%v %q: err %v, civil.ParseDate %v, %v", raw, s, err, d, wantOK)
			}
			if err != nil {
				continue
			}
			var got string
			switch v := dest[0].(type) {
			case string:
				got = v
			case []byte:
				got = string(v)
			}
			if got != s {
				t.Fatalf("raw=%v: decoded %#v, want the text %q", raw, dest[0], s)
			}
		}
	})
}
