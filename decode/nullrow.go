package decode

import (
	"unsafe"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
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
