package spannergorm_test

import (
	"errors"
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// arrays are ARRAY columns read into Array fields of other element types.
type arrays struct {
	Strs  spannergorm.Array[string]
	Ints  spannergorm.Array[int64]
	Small spannergorm.Array[int8]
}

// TestEmulatorArrayScanConverts: through GORM and database/sql, INT64
// elements into Array[string] are their decimal text ("65", not "A"),
// integral FLOAT64 and STRING elements into Array[int64] their numbers;
// a fraction, an element out of int8's range and a NULL are errors
// naming the column, the element and the types, never a truncated value
// (issue 28; dialecttest.ArrayScan).
func TestEmulatorArrayScanConverts(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannergorm.Config{})
	dialecttest.ArrayScan(t, db, dialecttest.ArrayQueries{
		Convertible: "SELECT [65, 66] AS strs, [2.0, -3.0] AS ints, [127, -128] AS small",
		Fraction:    "SELECT [2.0, 1.5] AS ints",
		OutOfRange:  "SELECT [300] AS small",
		Null:        "SELECT [1, NULL] AS ints",
	}, func() any { return &arrays{} }, isArrayScanError)
	var got arrays
	if err := db.Raw("SELECT ['12'] AS ints").Scan(&got).Error; err != nil || len(got.Ints) != 1 || got.Ints[0] != 12 {
		t.Fatalf("STRING into Array[int64]: %v, %v", got.Ints, err)
	}
}

func isArrayScanError(err error) bool {
	var ae *spannergorm.ArrayScanError
	return errors.As(err, &ae)
}
