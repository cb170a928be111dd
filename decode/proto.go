package decode

import (
	"database/sql/driver"
	"reflect"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// go-sql-spanner's DecodeOptionProto: every column, of any type, is a
// spanner.GenericColumnValue holding the column's type and the value as
// Spanner sent it, for the application to decode (GenericColumnValue.Decode
// or by hand). Such plans come from a cache of their own, so results
// decoded normally pay nothing for them.

var (
	scanGeneric = reflect.TypeFor[spanner.GenericColumnValue]()
	protoPlans  = newPlanCache(planCacheLimit)
)

// ProtoPlanFor is PlanFor for a result read with DecodeOptionProto.
func ProtoPlanFor(rowType []byte) (*Plan, error) {
	if p := protoPlans.get(rowType); p != nil {
		return p, nil
	}
	planMisses.Add(1)
	var st spannerpb.StructType
	if err := proto.Unmarshal(rowType, &st); err != nil {
		return nil, &ProtocolError{What: "result metadata row_type", Err: err, Code: codes.Internal}
	}
	p := &Plan{}
	for i, f := range st.GetFields() {
		t := f.GetType()
		p.Columns = append(p.Columns, Column{Name: f.GetName(), Type: t, TypeName: TypeName(t), ScanType: scanGeneric})
		p.Names = append(p.Names, f.GetName())
		cp := protoColumn(t)
		p.cols = append(p.cols, cp)
		p.layout.add(i, cp.slab, false)
	}
	return protoPlans.add(rowType, p), nil
}

// protoColumn decodes one encoded google.protobuf.Value into a
// GenericColumnValue of type t. The value owns its memory, raw mode or
// not: it is a protobuf message the application may keep.
func protoColumn(t *spannerpb.Type) columnPlan {
	return columnPlan{decode: func(b []byte, _ *arena) (driver.Value, error) {
		v := new(structpb.Value)
		if err := proto.Unmarshal(b, v); err != nil {
			return nil, &ProtocolError{What: "column value", Err: err, Code: codes.Internal}
		}
		return spanner.GenericColumnValue{Type: t, Value: v}, nil
	}}
}
