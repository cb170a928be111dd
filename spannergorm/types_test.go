package spannergorm

import (
	"math/big"
	"reflect"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm/schema"
)

type AllTypes struct {
	ID       int64
	B        bool
	F32      float32
	F64      float64
	S        string `gorm:"size:36"`
	Bs       []byte
	NS       spanner.NullString
	NI       spanner.NullInt64
	NF32     spanner.NullFloat32
	Date     civil.Date `gorm:"type:DATE"`
	ND       spanner.NullDate
	Num      big.Rat `gorm:"type:NUMERIC"`
	NNum     spanner.NullNumeric
	JSON     spanner.NullJSON `gorm:"type:JSON"`
	U        uuid.UUID
	NU       spanner.NullUUID
	Ints     Array[int64]
	NullStrs Array[spanner.NullString] `gorm:"size:10"`
	Dates    Array[civil.Date]
	Tagged   uuid.UUID `gorm:"type:STRING(36)"`
}

func TestDataTypeOf(t *testing.T) {
	s, err := schema.Parse(&AllTypes{}, &sync.Map{}, schema.NamingStrategy{})
	if err != nil {
		t.Fatal(err)
	}
	db, _ := newMock(t, Config{})
	m := db.Migrator().(Migrator)
	want := map[string]string{
		"id": "INT64", "b": "BOOL", "f32": "FLOAT32", "f64": "FLOAT64", "s": "STRING(36)",
		"bs": "BYTES(MAX)", "ns": "STRING(MAX)", "ni": "INT64", "nf32": "FLOAT32",
		"date": "DATE", "nd": "DATE", "num": "NUMERIC", "n_num": "NUMERIC", "json": "JSON",
		"u": "UUID", "nu": "UUID", "ints": "ARRAY<INT64>", "null_strs": "ARRAY<STRING(10)>",
		"dates": "ARRAY<DATE>", "tagged": "STRING(36)",
	}
	for col, w := range want {
		f := s.FieldsByDBName[col]
		if f == nil {
			t.Errorf("no field %s", col)
			continue
		}
		if got := m.DataTypeOf(f); got != w {
			t.Errorf("%s: %q, want %q", col, got, w)
		}
	}
}

func TestArrayValueAndScan(t *testing.T) {
	v, err := Array[int64]{1, 2}.Value()
	if err != nil || !reflect.DeepEqual(v, []int64{1, 2}) {
		t.Fatalf("Value = %#v, %v", v, err)
	}
	var a Array[int64]
	if err := a.Scan([]spanner.NullInt64{{Int64: 3, Valid: true}, {Int64: 4, Valid: true}}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, Array[int64]{3, 4}) {
		t.Fatalf("Scan = %v", a)
	}
	err = a.Scan([]spanner.NullInt64{{Int64: 1, Valid: true}, {}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "element 1") {
		t.Fatalf("NULL element: %v", err)
	}
	var n Array[spanner.NullInt64]
	if err := n.Scan([]int64{5}); err != nil || len(n) != 1 || n[0].Int64 != 5 || !n[0].Valid {
		t.Fatalf("Scan into NullInt64 array = %v, %v", n, err)
	}
	var d Array[civil.Date]
	day := civil.Date{Year: 2024, Month: 2, Day: 29}
	if err := d.Scan([]spanner.NullDate{{Date: day, Valid: true}}); err != nil || d[0] != day {
		t.Fatalf("Scan dates = %v, %v", d, err)
	}
	if err := a.Scan("x"); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("Scan string: %v", err)
	}
	if err := a.Scan(nil); err != nil || a != nil {
		t.Fatalf("Scan nil: %v, %v", a, err)
	}
	// A NULL ARRAY column comes from the driver as a typed nil slice of the
	// other element form; it stays NULL (nil), not an empty array.
	a = Array[int64]{1}
	if err := a.Scan([]spanner.NullInt64(nil)); err != nil || a != nil {
		t.Fatalf("Scan typed nil: %#v, %v", a, err)
	}
	var s Array[string]
	if err := s.Scan([]spanner.NullString{}); err != nil || s == nil || len(s) != 0 {
		t.Fatalf("Scan empty array: %#v, %v; want empty, not nil", s, err)
	}
}
