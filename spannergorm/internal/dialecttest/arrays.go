package dialecttest

import (
	"fmt"
	"strings"
	"testing"

	"gorm.io/gorm"
)

// ArrayQueries are the dialect's texts of the ArrayScan scenario's
// queries, each selecting array literals as columns strs, ints and small.
type ArrayQueries struct {
	// Convertible: [65, 66] AS strs (integers), [2.0, -3.0] AS ints
	// (floats), [127, -128] AS small (integers).
	Convertible string
	// Fraction: [2.0, 1.5] AS ints; OutOfRange: [300] AS small; Null:
	// [1, NULL] AS ints (integers).
	Fraction, OutOfRange, Null string
}

// ArrayScan checks on db, a database of either dialect, that array
// elements scanned into Array fields of other element types are
// converted as database/sql converts a column's value (issue 28). dst
// returns a new struct whose fields Strs, Ints and Small are
// spannergorm.Array[string], [int64] and [int8]; isScanError reports
// whether an error is spannergorm's ArrayScanError. Integers into strings
// are their decimal text and integral floats into int64 their numbers; a
// fraction, a value out of int8's range and a NULL are errors naming the
// column (database/sql's prefix), the element and the types.
func ArrayScan(t *testing.T, db *gorm.DB, q ArrayQueries, dst func() any, isScanError func(error) bool) {
	t.Helper()
	got := dst()
	if err := db.Raw(q.Convertible).Scan(got).Error; err != nil {
		t.Fatal(err)
	}
	if s, want := fmt.Sprintf("%v", got), "&{[65 66] [2 -3] [127 -128]}"; s != want {
		t.Fatalf("scanned %s, want %s", s, want)
	}
	for _, c := range []struct{ query, want string }{
		{q.Fraction, `name "ints": spannergorm: spannergorm.Array[int64].Scan: element 1 (spanner.NullFloat64 1.5): converting driver.Value type float64 ("1.5") to a int64`},
		{q.OutOfRange, `name "small": spannergorm: spannergorm.Array[int8].Scan: element 0 (spanner.NullInt64 300): converting driver.Value type int64 ("300") to a int8: value out of range`},
		{q.Null, `name "ints": spannergorm: spannergorm.Array[int64].Scan: element 1 (spanner.NullInt64 <null>): NULL in an element type without NULL`},
	} {
		d := dst()
		err := db.Raw(c.query).Scan(d).Error
		if err == nil || !strings.Contains(err.Error(), c.want) || !isScanError(err) {
			t.Errorf("%s: %v, %v; want an error with %q", c.query, d, err, c.want)
		}
	}
}
