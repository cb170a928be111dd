package decode

import (
	"math"
	"unicode/utf8"
	"unsafe"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"
)

// rowWords mirrors spanner.Row (its field types and values), so that a
// STRUCT value becomes a Row over the values just unmarshalled and the
// plan's field descriptions without spanner.NewRow, which boxes each value
// in a GenericColumnValue and clones its type and value: about 40 of the
// 58 allocations of a five-field STRUCT element.
type rowWords struct {
	fields []*spannerpb.StructType_Field
	vals   []*structpb.Value
}

// A change of spanner.Row's size fails the build here (negative array
// length); a change of its field order is caught by rowLayoutOK.
var (
	_ [unsafe.Sizeof(rowWords{}) - unsafe.Sizeof(spanner.Row{})]struct{}
	_ [unsafe.Sizeof(spanner.Row{}) - unsafe.Sizeof(rowWords{})]struct{}
)

// rowLayoutOK is true when a Row made by spanner.NewRow reads back through
// rowWords: its values (compared as pointers first, which is safe whatever
// the layout) and then its types. Otherwise makeRow uses spanner.NewRow.
var rowLayoutOK = checkRowLayout()

func checkRowLayout() bool {
	r, err := spanner.NewRow([]string{"a", "b"}, []any{int64(1), "x"})
	if err != nil {
		return false
	}
	w := (*rowWords)(unsafe.Pointer(r))
	if len(w.vals) != 2 || len(w.fields) != 2 {
		return false
	}
	for i := range 2 {
		if w.vals[i] != r.ColumnValue(i) {
			return false
		}
	}
	for i := range 2 {
		if w.fields[i].GetType() != r.ColumnType(i) || w.fields[i].GetName() != r.ColumnName(i) {
			return false
		}
	}
	return true
}

// makeRow returns a Row of fields (the plan's, shared by every row of the
// result and never modified) and vals (owned by the row).
func makeRow(fields []*spannerpb.StructType_Field, vals []*structpb.Value) (spanner.Row, error) {
	if rowLayoutOK {
		var r spanner.Row
		*(*rowWords)(unsafe.Pointer(&r)) = rowWords{fields: fields, vals: vals}
		return r, nil
	}
	names := make([]string, len(fields))
	gvs := make([]any, len(fields))
	for i, f := range fields {
		names[i] = f.GetName()
		gvs[i] = spanner.GenericColumnValue{Type: f.GetType(), Value: vals[i]}
	}
	r, err := spanner.NewRow(names, gvs)
	if err != nil {
		return spanner.Row{}, err
	}
	return *r, nil
}

// buildStructValues is false only in tests that compare buildValues with
// proto.Unmarshal.
var buildStructValues = true

// Oneof members shared by every built value: they hold no state of their
// own (proto's setters replace a member, they do not write into it).
var (
	nullKind  = &structpb.Value_NullValue{}
	trueKind  = &structpb.Value_BoolValue{BoolValue: true}
	falseKind = &structpb.Value_BoolValue{BoolValue: false}
)

// buildValues makes the google.protobuf.Values of an encoded ListValue's
// elements as proto.Unmarshal makes them, in fewer allocations: one block
// for the Values, one for their pointers, one for the bytes of all their
// strings, one per number, string and list member (NULL and bool members
// are shared), recursing into lists. It builds only what is in the form
// every encoder writes, which proto.Unmarshal reads the same: a list of
// element fields only, each element exactly one null, number, string
// (UTF-8), bool or list member. For anything else (a Struct member, an
// unset value, unknown fields, bad wire data) ok is false and the caller
// unmarshals, which reports what is wrong (FuzzBuildValues).
func buildValues(l []byte) (vals []*structpb.Value, ok bool) {
	n, text := 0, 0
	for rest := l; len(rest) > 0; n++ {
		var v Value
		if v, rest, ok = plainElem(rest); !ok {
			return nil, false
		}
		if v.Kind == KindString {
			if !utf8.Valid(v.Bytes) {
				return nil, false
			}
			text += len(v.Bytes)
		}
	}
	if n == 0 {
		return nil, true
	}
	block := make([]structpb.Value, n)
	vals = make([]*structpb.Value, n)
	var buf []byte
	if text > 0 {
		buf = make([]byte, 0, text)
	}
	rest := l
	for i := range n {
		var v Value
		v, rest, _ = plainElem(rest)
		pv := &block[i]
		switch v.Kind {
		case KindNull:
			pv.Kind = nullKind
		case KindBool:
			pv.Kind = falseKind
			if v.Bool {
				pv.Kind = trueKind
			}
		case KindNumber:
			pv.Kind = &structpb.Value_NumberValue{NumberValue: v.Num}
		case KindString:
			s := ""
			if len(v.Bytes) > 0 {
				at := len(buf)
				buf = append(buf, v.Bytes...)
				s = unsafe.String(&buf[at], len(v.Bytes))
			}
			pv.Kind = &structpb.Value_StringValue{StringValue: s}
		case KindList:
			sub, ok := buildValues(v.Bytes)
			if !ok {
				return nil, false
			}
			pv.Kind = &structpb.Value_ListValue{ListValue: &structpb.ListValue{Values: sub}}
		}
		vals[i] = pv
	}
	return vals, true
}

// plainElem reads the first element of an encoded ListValue when it is in
// buildValues' form: a values field (1, bytes) holding exactly one member
// of a known kind with its wire type.
func plainElem(l []byte) (v Value, rest []byte, ok bool) {
	num, typ, n := protowire.ConsumeTag(l)
	if n < 0 || num != fieldListValues || typ != protowire.BytesType {
		return v, nil, false
	}
	e, m := protowire.ConsumeBytes(l[n:])
	if m < 0 {
		return v, nil, false
	}
	rest = l[n+m:]
	num, typ, n = protowire.ConsumeTag(e)
	if n < 0 {
		return v, nil, false
	}
	e = e[n:]
	switch {
	case num == fieldNull && typ == protowire.VarintType:
		_, m = protowire.ConsumeVarint(e)
		v.Kind = KindNull
	case num == fieldNumber && typ == protowire.Fixed64Type:
		var bits uint64
		bits, m = protowire.ConsumeFixed64(e)
		v = Value{Kind: KindNumber, Num: math.Float64frombits(bits)}
	case num == fieldString && typ == protowire.BytesType:
		v.Bytes, m = protowire.ConsumeBytes(e)
		v.Kind = KindString
	case num == fieldBool && typ == protowire.VarintType:
		var x uint64
		x, m = protowire.ConsumeVarint(e)
		v = Value{Kind: KindBool, Bool: x != 0}
	case num == fieldList && typ == protowire.BytesType:
		v.Bytes, m = protowire.ConsumeBytes(e)
		v.Kind = KindList
	default:
		return v, nil, false
	}
	if m < 0 || m != len(e) {
		return v, nil, false
	}
	return v, rest, true
}
