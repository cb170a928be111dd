package spannergorm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm"
)

// arrays are ARRAY columns read into Array fields of other element types.
type arrays struct {
	Strs  spannergorm.Array[string]
	Ints  spannergorm.Array[int64]
	Small spannergorm.Array[int8]
}

// TestEmulatorArrayScanConverts: through GORM and database/sql, INT64
// elements into Array[string] are their decimal text ("65", not "A"),
// integral FLOAT64 and STRING elements into Array[int64] are their
// numbers; a fraction, an element out of int8's range and a NULL are
// errors naming the column (database/sql's prefix), the element and
// the types, never a truncated value (issue 28; arrayscan.go).
func TestEmulatorArrayScanConverts(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannergorm.Config{})
	var got arrays
	if err := db.Raw("SELECT [65, 66] AS strs, [2.0, -3.0] AS ints, [127, -128] AS small").Scan(&got).Error; err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Strs, ",") != "65,66" || len(got.Ints) != 2 || got.Ints[0] != 2 || got.Ints[1] != -3 || got.Small[0] != 127 {
		t.Fatalf("scanned %+v", got)
	}
	if err := db.Raw("SELECT ['12'] AS ints").Scan(&got).Error; err != nil || got.Ints[0] != 12 {
		t.Fatalf("STRING into Array[int64]: %v, %v", got.Ints, err)
	}
	for _, c := range []struct{ query, want string }{
		{"SELECT [2.0, 1.5] AS ints", `name "ints": spannergorm: spannergorm.Array[int64].Scan: element 1 (spanner.NullFloat64 1.5): converting driver.Value type float64 ("1.5") to a int64`},
		{"SELECT [300] AS small", `name "small": spannergorm: spannergorm.Array[int8].Scan: element 0 (spanner.NullInt64 300): converting driver.Value type int64 ("300") to a int8: value out of range`},
		{"SELECT [1, NULL] AS ints", `name "ints": spannergorm: spannergorm.Array[int64].Scan: element 1 (spanner.NullInt64 <null>): NULL in an element type without NULL`},
	} {
		var dst arrays
		err := db.Raw(c.query).Scan(&dst).Error
		var ae *spannergorm.ArrayScanError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ae) {
			t.Errorf("%s: %+v, %v; want an error with %q", c.query, dst, err, c.want)
		}
	}
}
