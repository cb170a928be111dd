package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

type structsLine struct {
	SKU   string `spanner:"sku"`
	Qty   int64
	Note  *string
	Price spanner.NullFloat64
}

type structsOrder struct {
	ID       int64 `spanner:"id"`
	Customer struct {
		Name string
		City *string
	}
	Lines []*structsLine
}

// structsResult is a result the emulator cannot return: a top-level STRUCT
// column (with a nested STRUCT and an ARRAY<STRUCT> in it) and an
// ARRAY<STRUCT> column with a NULL element, over three rows.
func structsResult() *spannerpb.ResultSet {
	null := structpb.NewNullValue()
	num := structpb.NewNumberValue
	lineT := structOf(field("sku", typ(spannerpb.TypeCode_STRING)), field("qty", typ(spannerpb.TypeCode_INT64)),
		field("note", typ(spannerpb.TypeCode_STRING)), field("price", typ(spannerpb.TypeCode_FLOAT64)))
	custT := structOf(field("name", typ(spannerpb.TypeCode_STRING)), field("city", typ(spannerpb.TypeCode_STRING)))
	orderT := structOf(field("id", typ(spannerpb.TypeCode_INT64)), field("customer", custT), field("lines", arrayOfType(lineT)))
	line := func(sku string, qty string) *structpb.Value { return list(str(sku), str(qty), null, num(2.5)) }
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		field("orders", orderT), field("lines", arrayOfType(lineT)),
	}}}}
	for r := range 3 {
		id := []string{"1", "2", "3"}[r]
		order := list(str(id), list(str("cust"+id), str("city")), list(line("a"+id, "1"), null))
		lines := list(line("x"+id, "5"), null, list(str(strings.Repeat("y", 100)+id), str("7"), str("note"), null))
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{order, lines}})
	}
	return rs
}

// TestFakeStructs: a STRUCT column scans into a Go struct and an
// ARRAY<STRUCT> into []T and []*T through database/sql, in safe mode and
// in raw mode with poisoned buffers: values kept from earlier rows are
// unchanged after Next moves on, a NULL element is nil in []*T, and the
// column stays a []spanner.NullRow for Scan into *any.
func TestFakeStructs(t *testing.T) {
	s := fakespanner.Start(t)
	// Whole values in a message (they alias its receive buffer, which is
	// poisoned when released) and values chunked across messages (merged
	// into the driver's memory).
	s.AddResult("orders", &fakespanner.Result{ResultSet: structsResult()})
	s.AddResult("orders chunked", &fakespanner.Result{ResultSet: structsResult(),
		Split: fakespanner.SplitOptions{MaxBytes: 64, ResumeTokenEvery: 1}})
	ctx := context.Background()
	for _, run := range [][]string{{"orders"}, {"orders chunked"}, {"orders", "rawDecode=true", "poison_raw_buffers=true"},
		{"orders chunked", "rawDecode=true", "poison_raw_buffers=true"}} {
		query, props := run[0], run[1:]
		db := openFake(t, s, props...)
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		var orders []structsOrder
		var lines [][]*structsLine
		for rows.Next() {
			var o structsOrder
			var ls []*structsLine
			if err := rows.Scan(driver.Struct(&o), driver.Structs(&ls)); err != nil {
				t.Fatal(props, err)
			}
			var raw any
			if err := rows.Scan(new(any), &raw); err != nil {
				t.Fatal(err)
			}
			if _, ok := raw.([]spanner.NullRow); !ok {
				t.Fatalf("%v: *any got %T", props, raw)
			}
			orders, lines = append(orders, o), append(lines, ls)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if len(orders) != 3 {
			t.Fatalf("%v: %d rows", props, len(orders))
		}
		for r, o := range orders {
			id := []string{"1", "2", "3"}[r]
			if o.ID != int64(r+1) || o.Customer.Name != "cust"+id || *o.Customer.City != "city" ||
				len(o.Lines) != 2 || o.Lines[0].SKU != "a"+id || o.Lines[1] != nil {
				t.Errorf("%v: order %d = %+v", props, r, o)
			}
			ls := lines[r]
			if len(ls) != 3 || ls[0].SKU != "x"+id || ls[0].Qty != 5 || ls[0].Note != nil || ls[0].Price.Float64 != 2.5 ||
				ls[1] != nil || ls[2].SKU != strings.Repeat("y", 100)+id || *ls[2].Note != "note" || ls[2].Price.Valid {
				t.Errorf("%v: lines %d = %+v", props, r, ls)
			}
		}
	}
}

// TestFakeStructsErrors: a NULL element into []T, a STRUCT field without a
// Go field and a field of the wrong type fail Scan with an error naming
// the column (database/sql), the Go field and the STRUCT field.
func TestFakeStructsErrors(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult("orders", &fakespanner.Result{ResultSet: structsResult()})
	db := openFake(t, s, "rawDecode=true")
	type noNote struct {
		SKU   string
		Qty   int64
		Price float64
	}
	type wrongQty struct {
		SKU   string
		Qty   string
		Note  *string
		Price float64
	}
	var (
		vals  []structsLine
		miss  []*noNote
		wrong []*wrongQty
		one   structsLine
	)
	for _, c := range []struct {
		dst   any
		want  []string
		field bool // a *driver.StructFieldError
	}{
		{driver.Structs(&vals), []string{`name "lines"`, "element 1", "NULL"}, true},
		{driver.Structs(&miss), []string{`name "lines"`, `"note"`, "noNote"}, true},
		{driver.Structs(&wrong), []string{`name "lines"`, `"qty"`, "wrongQty.Qty"}, true},
		{driver.Struct(&one), []string{`name "lines"`, "only a STRUCT column"}, false},
	} {
		err := db.QueryRow("orders").Scan(new(any), c.dst)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("error %v does not say %s", err, w)
			}
		}
		var fe *driver.StructFieldError
		if c.field && !errors.As(err, &fe) {
			t.Errorf("%v: not a FieldError", err)
		}
	}
}

type benchItem struct {
	ID      int64
	Name    string
	Price   float64
	InStock bool
	Updated time.Time
}

// BenchmarkStructsScan reads one row of an ARRAY<STRUCT> of 100 elements
// of five fields through database/sql on the fake server, scanned into
// []spanner.NullRow, into []benchItem with driver.Structs, and into
// []benchItem by the hand-written Row.ToStruct loop driver.Structs
// replaces. The differences of allocs/op are the scans' own (the server's
// and Next's work is the same in all three).
func BenchmarkStructsScan(b *testing.B) {
	itemT := structOf(field("id", typ(spannerpb.TypeCode_INT64)), field("name", typ(spannerpb.TypeCode_STRING)),
		field("price", typ(spannerpb.TypeCode_FLOAT64)), field("instock", typ(spannerpb.TypeCode_BOOL)),
		field("updated", typ(spannerpb.TypeCode_TIMESTAMP)))
	var elems []*structpb.Value
	for i := range 100 {
		elems = append(elems, list(str(fmt.Sprint(i)), str(fmt.Sprintf("item %d", i)), structpb.NewNumberValue(float64(i)),
			structpb.NewBoolValue(i%2 == 0), str("2024-05-06T07:08:09.123456Z")))
	}
	s := fakespanner.Start(b)
	s.SetRecording(false)
	s.AddResult("items", &fakespanner.Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{field("items", arrayOfType(itemT))}}},
		Rows:     []*structpb.ListValue{{Values: []*structpb.Value{list(elems...)}}},
	}})
	c, err := openFake(b, s).Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	run := func(b *testing.B, scan func(*sql.Rows) error) {
		b.ReportAllocs()
		for b.Loop() {
			rows, err := c.QueryContext(context.Background(), "items")
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				if err := scan(rows); err != nil {
					b.Fatal(err)
				}
			}
			if err := rows.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("NullRows", func(b *testing.B) {
		run(b, func(r *sql.Rows) error { var v []spanner.NullRow; return r.Scan(&v) })
	})
	b.Run("Structs", func(b *testing.B) {
		run(b, func(r *sql.Rows) error { var v []benchItem; return r.Scan(driver.Structs(&v)) })
	})
	b.Run("ToStructLoop", func(b *testing.B) {
		run(b, func(r *sql.Rows) error {
			var nr []spanner.NullRow
			if err := r.Scan(&nr); err != nil {
				return err
			}
			v := make([]benchItem, len(nr))
			for i := range nr {
				if err := nr[i].Row.ToStruct(&v[i]); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// TestFakeStructTypes: driver.NullStruct and driver.StructSlice scan a
// STRUCT and an ARRAY<STRUCT> column by themselves, rows.Scan(&v), NULL
// STRUCT and NULL array included.
func TestFakeStructTypes(t *testing.T) {
	s := fakespanner.Start(t)
	rs := structsResult()
	rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{structpb.NewNullValue(), structpb.NewNullValue()}})
	s.AddResult("orders", &fakespanner.Result{ResultSet: rs})
	rows, err := openFake(t, s, "rawDecode=true").Query("orders")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var o driver.NullStruct[structsOrder]
		var ls driver.StructSlice[*structsLine]
		if err := rows.Scan(&o, &ls); err != nil {
			t.Fatal(err)
		}
		if !o.Valid {
			got = append(got, fmt.Sprintf("NULL %d %v", len(ls), ls == nil))
			continue
		}
		plain := []*structsLine(ls)
		got = append(got, fmt.Sprintf("%d %s %d %s %v", o.Struct.ID, o.Struct.Customer.Name, len(plain), plain[0].SKU, plain[1] == nil))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := "[1 cust1 3 x1 true 2 cust2 3 x2 true 3 cust3 3 x3 true NULL 0 true]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}
