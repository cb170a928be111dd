package wire

import (
	"math"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// The encoding of ExecuteSqlRequest, the request of every streaming query,
// written field by field.
//
// proto.Marshal walks the message by reflection twice (a size pass and a
// write pass) and costs about 2 µs for a point read's request, a tenth of
// what the client spends on the whole query. The fields every query has
// (session, SQL, parameters and their types, seqno, request options) are
// encoded here directly; the rarer nested messages (transaction selector,
// query options, directed reads, routing hints, a request's client
// context) go through proto. The bytes are what proto.Marshal writes:
// fields in number order, default values left out, map entries in map
// order. TestEncoderKnowsEveryField fails when a client library upgrade
// adds a field that this file does not write.

// AppendExecuteSQL appends the encoding of r to b.
func AppendExecuteSQL(b []byte, r *spannerpb.ExecuteSqlRequest) ([]byte, error) {
	var err error
	b = appendString(b, 1, r.Session)
	if b, err = appendProto(b, 2, r.Transaction); err != nil {
		return nil, err
	}
	b = appendString(b, 3, r.Sql)
	b = appendParams(b, 4, r.Params)
	b = appendParamTypes(b, 5, r.ParamTypes)
	b = appendBytes(b, 6, r.ResumeToken)
	b = appendVarint(b, 7, uint64(r.QueryMode))
	b = appendBytes(b, 8, r.PartitionToken)
	b = appendVarint(b, 9, uint64(r.Seqno))
	if b, err = appendProto(b, 10, r.QueryOptions); err != nil {
		return nil, err
	}
	if b, err = appendRequestOptions(b, 11, r.RequestOptions); err != nil {
		return nil, err
	}
	if b, err = appendProto(b, 15, r.DirectedReadOptions); err != nil {
		return nil, err
	}
	b = appendBool(b, 16, r.DataBoostEnabled)
	b = appendBool(b, 17, r.LastStatement)
	if b, err = appendProto(b, 18, r.RoutingHint); err != nil {
		return nil, err
	}
	return append(b, r.ProtoReflect().GetUnknown()...), nil
}

// AppendExecuteBatchDML appends the encoding of r, a DML batch's request,
// to b: its statements (text, parameters and their types) field by field,
// as AppendExecuteSQL writes a query's, the transaction selector and
// request options as AppendExecuteSQL writes them.
func AppendExecuteBatchDML(b []byte, r *spannerpb.ExecuteBatchDmlRequest) ([]byte, error) {
	var err error
	b = appendString(b, 1, r.Session)
	if b, err = appendProto(b, 2, r.Transaction); err != nil {
		return nil, err
	}
	for _, st := range r.Statements {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeBatchStatement(st)))
		if st == nil {
			continue
		}
		b = appendString(b, 1, st.Sql)
		b = appendParams(b, 2, st.Params)
		b = appendParamTypes(b, 3, st.ParamTypes)
		b = append(b, st.ProtoReflect().GetUnknown()...)
	}
	b = appendVarint(b, 4, uint64(r.Seqno))
	if b, err = appendRequestOptions(b, 5, r.RequestOptions); err != nil {
		return nil, err
	}
	b = appendBool(b, 6, r.LastStatements)
	return append(b, r.ProtoReflect().GetUnknown()...), nil
}

func sizeBatchStatement(st *spannerpb.ExecuteBatchDmlRequest_Statement) int {
	if st == nil {
		return 0
	}
	n := sizeString(1, st.Sql)
	if st.Params != nil {
		n += sizeMessage(2, sizeStruct(st.Params))
	}
	for name, typ := range st.ParamTypes {
		n += sizeMessage(3, sizeParamType(name, typ))
	}
	return n + len(st.ProtoReflect().GetUnknown())
}

// appendParams appends a statement's parameters, if set, as field num.
func appendParams(b []byte, num protowire.Number, params *structpb.Struct) []byte {
	if params == nil {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(sizeStruct(params)))
	return appendStruct(b, params)
}

// appendParamTypes appends a statement's parameter types as the entries
// of map field num.
func appendParamTypes(b []byte, num protowire.Number, types map[string]*spannerpb.Type) []byte {
	for name, typ := range types {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeParamType(name, typ)))
		b = appendString(b, 1, name)
		if typ != nil {
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(sizeType(typ)))
			b = appendType(b, typ)
		}
	}
	return b
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendVarint(b, num, 1)
}

func sizeString(num protowire.Number, s string) int {
	if s == "" {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(len(s))
}

func sizeVarint(num protowire.Number, v uint64) int {
	if v == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeVarint(v)
}

func sizeMessage(num protowire.Number, n int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

// appendProto appends m, if set, as field num through proto.
func appendProto[M interface {
	proto.Message
	comparable
}](b []byte, num protowire.Number, m M) ([]byte, error) {
	var zero M
	if m == zero {
		return b, nil
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(proto.Size(m)))
	return proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(b, m)
}

func appendRequestOptions(b []byte, num protowire.Number, o *spannerpb.RequestOptions) ([]byte, error) {
	if o == nil {
		return b, nil
	}
	n := sizeVarint(1, uint64(o.Priority)) + sizeString(2, o.RequestTag) + sizeString(3, o.TransactionTag)
	if o.ClientContext != nil {
		n += sizeMessage(4, proto.Size(o.ClientContext))
	}
	n += len(o.ProtoReflect().GetUnknown())
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	b = appendVarint(b, 1, uint64(o.Priority))
	b = appendString(b, 2, o.RequestTag)
	b = appendString(b, 3, o.TransactionTag)
	b, err := appendProto(b, 4, o.ClientContext)
	if err != nil {
		return nil, err
	}
	return append(b, o.ProtoReflect().GetUnknown()...), nil
}

// Parameters: google.protobuf.Struct and Value.

func sizeStruct(s *structpb.Struct) int {
	n := 0
	for k, v := range s.Fields {
		n += sizeMessage(1, sizeEntry(k, v))
	}
	return n
}

func sizeEntry(k string, v *structpb.Value) int {
	n := sizeString(1, k)
	if v != nil {
		n += sizeMessage(2, sizeValue(v))
	}
	return n
}

func appendStruct(b []byte, s *structpb.Struct) []byte {
	for k, v := range s.Fields {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeEntry(k, v)))
		b = appendString(b, 1, k)
		if v != nil {
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(sizeValue(v)))
			b = appendValue(b, v)
		}
	}
	return b
}

// sizeValue is the size of v's one field. A oneof member is written even
// when it holds its type's zero value, as proto.Marshal writes it.
func sizeValue(v *structpb.Value) int {
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		return protowire.SizeTag(1) + protowire.SizeVarint(uint64(k.NullValue))
	case *structpb.Value_NumberValue:
		return protowire.SizeTag(2) + protowire.SizeFixed64()
	case *structpb.Value_StringValue:
		return protowire.SizeTag(3) + protowire.SizeBytes(len(k.StringValue))
	case *structpb.Value_BoolValue:
		return protowire.SizeTag(4) + 1
	case *structpb.Value_StructValue:
		if k.StructValue == nil {
			return sizeMessage(5, 0)
		}
		return sizeMessage(5, sizeStruct(k.StructValue))
	case *structpb.Value_ListValue:
		return sizeMessage(6, sizeList(k.ListValue))
	}
	return 0
}

func sizeList(l *structpb.ListValue) int {
	n := 0
	for _, e := range l.GetValues() {
		n += sizeMessage(1, sizeValue(e))
	}
	return n
}

func appendValue(b []byte, v *structpb.Value) []byte {
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(k.NullValue))
	case *structpb.Value_NumberValue:
		b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(k.NumberValue))
	case *structpb.Value_StringValue:
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		return protowire.AppendString(b, k.StringValue)
	case *structpb.Value_BoolValue:
		b = protowire.AppendTag(b, 4, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(k.BoolValue))
	case *structpb.Value_StructValue:
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		if k.StructValue == nil {
			return protowire.AppendVarint(b, 0)
		}
		b = protowire.AppendVarint(b, uint64(sizeStruct(k.StructValue)))
		return appendStruct(b, k.StructValue)
	case *structpb.Value_ListValue:
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeList(k.ListValue)))
		for _, e := range k.ListValue.GetValues() {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(sizeValue(e)))
			b = appendValue(b, e)
		}
	}
	return b
}

// Parameter types: spanner.v1.Type, StructType and its fields.

func sizeParamType(name string, t *spannerpb.Type) int {
	n := sizeString(1, name)
	if t != nil {
		n += sizeMessage(2, sizeType(t))
	}
	return n
}

func sizeType(t *spannerpb.Type) int {
	n := sizeVarint(1, uint64(t.Code))
	if t.ArrayElementType != nil {
		n += sizeMessage(2, sizeType(t.ArrayElementType))
	}
	if t.StructType != nil {
		n += sizeMessage(3, sizeStructType(t.StructType))
	}
	n += sizeVarint(4, uint64(t.TypeAnnotation)) + sizeString(5, t.ProtoTypeFqn)
	return n
}

func sizeStructType(s *spannerpb.StructType) int {
	n := 0
	for _, f := range s.Fields {
		n += sizeMessage(1, sizeField(f))
	}
	return n
}

func sizeField(f *spannerpb.StructType_Field) int {
	n := sizeString(1, f.GetName())
	if t := f.GetType(); t != nil {
		n += sizeMessage(2, sizeType(t))
	}
	return n
}

func appendType(b []byte, t *spannerpb.Type) []byte {
	b = appendVarint(b, 1, uint64(t.Code))
	if t.ArrayElementType != nil {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeType(t.ArrayElementType)))
		b = appendType(b, t.ArrayElementType)
	}
	if t.StructType != nil {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeStructType(t.StructType)))
		for _, f := range t.StructType.Fields {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(sizeField(f)))
			b = appendString(b, 1, f.GetName())
			if ft := f.GetType(); ft != nil {
				b = protowire.AppendTag(b, 2, protowire.BytesType)
				b = protowire.AppendVarint(b, uint64(sizeType(ft)))
				b = appendType(b, ft)
			}
		}
	}
	b = appendVarint(b, 4, uint64(t.TypeAnnotation))
	return appendString(b, 5, t.ProtoTypeFqn)
}
