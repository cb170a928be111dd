package decode_test

import (
	"database/sql/driver"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/decode"
)

// TestProtoPlanPostgreSQL: with DecodeOptionProto a PostgreSQL column is a
// spanner.GenericColumnValue whose Type keeps its annotation, so the
// application decodes it into spanner.PGNumeric / spanner.PGJsonB as with
// go-sql-spanner.
func TestProtoPlanPostgreSQL(t *testing.T) {
	p, err := decode.ProtoPlanFor(rowType(fld("n", tPGNumeric), fld("j", tPGJSONB), fld("an", arrayOf(tPGNumeric))))
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 3)
	in := [][]byte{enc(str("NaN")), enc(str(`{"a":1}`)), enc(list(str("1.5"), null()))}
	if err := decode.NewRowDecoder(p, false).Decode(in, dest); err != nil {
		t.Fatal(err)
	}
	for i, want := range []any{
		spanner.PGNumeric{Numeric: "NaN", Valid: true},
		spanner.PGJsonB{Value: map[string]any{"a": 1.0}, Valid: true},
		[]spanner.PGNumeric{{Numeric: "1.5", Valid: true}, {}},
	} {
		g := dest[i].(spanner.GenericColumnValue)
		if !proto.Equal(g.Type, p.Columns[i].Type) {
			t.Errorf("column %d: type %v, want %v", i, g.Type, p.Columns[i].Type)
		}
		got := reflect.New(reflect.TypeOf(want))
		if err := g.Decode(got.Interface()); err != nil {
			t.Fatalf("column %d: Decode: %v", i, err)
		}
		if !reflect.DeepEqual(got.Elem().Interface(), want) {
			t.Errorf("column %d: %#v, want %#v", i, got.Elem().Interface(), want)
		}
	}
}
