package spannergorm

import (
	"database/sql"
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestArrayScanConversions: each element is converted as database/sql
// converts a column's value (issue 28): numbers into strings are their
// decimal text, floats into integers only when integral and written as
// integers, values out of range and text that is no number refused;
// the same value scanned as a column by database/sql gives the same
// result (want) or fails too.
func TestArrayScanConversions(t *testing.T) {
	at := time.Date(2024, 2, 29, 12, 0, 0, 5, time.UTC)
	for _, c := range []struct {
		name string
		src  any
		scan func(src any) (any, error)
		want any // nil: an error
	}{
		{"int64 into string", []int64{65, -7}, scanAs[string], Array[string]{"65", "-7"}},
		{"NullInt64 into string", []spanner.NullInt64{{Int64: 65, Valid: true}}, scanAs[string], Array[string]{"65"}},
		{"float64 into string", []float64{1.5, 1e21}, scanAs[string], Array[string]{"1.5", "1e+21"}},
		{"bool into string", []bool{true}, scanAs[string], Array[string]{"true"}},
		{"time into string", []time.Time{at}, scanAs[string], Array[string]{at.Format(time.RFC3339Nano)}},
		{"bytes into string", [][]byte{[]byte("ab")}, scanAs[string], Array[string]{"ab"}},
		{"integral float64 into int64", []float64{2, -3}, scanAs[int64], Array[int64]{2, -3}},
		{"fraction into int64", []float64{2, 1.5}, scanAs[int64], nil},
		{"NullFloat64 fraction into int64", []spanner.NullFloat64{{Float64: 1.5, Valid: true}}, scanAs[int64], nil},
		{"float64 1e6 into int64", []float64{1e6}, scanAs[int64], nil},
		{"NaN into int64", []float64{math.NaN()}, scanAs[int64], nil},
		{"string into int64", []string{"12"}, scanAs[int64], Array[int64]{12}},
		{"text into int64", []string{"x"}, scanAs[int64], nil},
		{"int64 into int8 in range", []int64{-128, 127}, scanAs[int8], Array[int8]{-128, 127}},
		{"int64 into int8 out of range", []int64{300}, scanAs[int8], nil},
		{"negative into uint64", []int64{-1}, scanAs[uint64], nil},
		{"int64 into float64", []int64{3}, scanAs[float64], Array[float64]{3}},
		{"float64 into float32 out of range", []float64{1e300}, scanAs[float32], nil},
		{"int64 into bool", []int64{1, 0}, scanAs[bool], Array[bool]{true, false}},
		{"2 into bool", []int64{2}, scanAs[bool], nil},
		{"NULL into int64", []spanner.NullInt64{{}}, scanAs[int64], nil},
		{"nil pointer into int64", []*int64{nil}, scanAs[int64], nil},
		{"pointer into int64", []*int64{ptr(int64(4))}, scanAs[int64], Array[int64]{4}},
		{"NULL into NullInt64", []spanner.NullInt64{{}}, scanAs[spanner.NullInt64], Array[spanner.NullInt64]{{}}},
		{"string into NullInt64 (its own Scan)", []string{"5"}, scanAs[spanner.NullInt64], Array[spanner.NullInt64]{{Int64: 5, Valid: true}}},
		{"text into NullInt64 (its own Scan)", []string{"x"}, scanAs[spanner.NullInt64], nil},
	} {
		got, err := c.scan(c.src)
		if c.want == nil {
			var ae *ArrayScanError
			if !errors.As(err, &ae) || status.Code(err) != codes.InvalidArgument || ae.Index < 0 {
				t.Errorf("%s: %#v, %v; want an InvalidArgument *ArrayScanError naming the element", c.name, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %#v, %v; want %#v", c.name, got, err, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// scanAs scans src into an Array[T] and returns it.
func scanAs[T any](src any) (any, error) {
	var a Array[T]
	err := a.Scan(src)
	return a, err
}

// TestArrayScanError: the error names the element, its value and type,
// and the destination type, and unwraps to database/sql's conversion
// error (whose text database/sql writes); a value that is no array is
// refused whole.
func TestArrayScanError(t *testing.T) {
	var a Array[int64]
	err := a.Scan([]float64{2, 1.5})
	want := `spannergorm: spannergorm.Array[int64].Scan: element 1 (float64 1.5): converting driver.Value type float64 ("1.5") to a int64: invalid syntax`
	if err == nil || err.Error() != want {
		t.Errorf("Scan = %v\nwant %s", err, want)
	}
	err = a.Scan([]spanner.NullInt64{{Int64: 1, Valid: true}, {}})
	if !errors.Is(err, errNullElement) {
		t.Errorf("NULL element: %v", err)
	}
	var ae *ArrayScanError
	if err := a.Scan("x"); !errors.As(err, &ae) || ae.Index != -1 {
		t.Errorf("Scan string: %v", err)
	}
}

// FuzzArrayScan: for any float64 and int64, Array[int64], Array[string]
// and Array[float64] succeed exactly when database/sql's own Scan of the
// same value does and give the same value; a float stored in an int64
// is never changed (no truncation), and an int64 stored as a string
// reads back as the same number.
func FuzzArrayScan(f *testing.F) {
	f.Add(1.5, int64(65))
	f.Add(2.0, int64(-1))
	f.Add(1e6, int64(math.MaxInt64))
	f.Add(math.Inf(1), int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, fl float64, n int64) {
		var ints Array[int64]
		err := ints.Scan([]float64{fl})
		var col sql.Null[int64]
		colErr := col.Scan(fl)
		if (err == nil) != (colErr == nil) || (err == nil && (ints[0] != col.V || float64(ints[0]) != fl)) {
			t.Fatalf("%v into Array[int64] = %v, %v; database/sql: %v, %v", fl, ints, err, col.V, colErr)
		}
		var strs Array[string]
		if err := strs.Scan([]int64{n}); err != nil || strs[0] != strconv.FormatInt(n, 10) {
			t.Fatalf("%d into Array[string] = %q, %v", n, strs, err)
		}
		var floats Array[float64]
		if err := floats.Scan([]int64{n}); err != nil || floats[0] != float64(n) {
			t.Fatalf("%d into Array[float64] = %v, %v", n, floats, err)
		}
	})
}
