package spannerpg_test

import (
	"errors"
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// TestEmulatorArrayScanConverts: spannergorm.Array under this dialector
// converts as database/sql does: bigint elements into Array[string] are
// their decimal text, integral float8 elements into Array[int64] their
// numbers; a fraction, an element out of int8's range and a NULL are
// errors naming the column, the element and the types (issue 28;
// dialecttest.ArrayScan).
func TestEmulatorArrayScanConverts(t *testing.T) {
	t.Parallel()
	dialecttest.ArrayScan(t, openEmulator(t, spannerpg.SpannerConfig{}), dialecttest.ArrayQueries{
		Convertible: "SELECT ARRAY[65, 66]::bigint[] AS strs, ARRAY[2.0, -3.0]::float8[] AS ints, ARRAY[127, -128]::bigint[] AS small",
		Fraction:    "SELECT ARRAY[2.0, 1.5]::float8[] AS ints",
		OutOfRange:  "SELECT ARRAY[300]::bigint[] AS small",
		Null:        "SELECT ARRAY[1, NULL]::bigint[] AS ints",
	}, func() any {
		return &struct {
			Strs  spannergorm.Array[string]
			Ints  spannergorm.Array[int64]
			Small spannergorm.Array[int8]
		}{}
	}, func(err error) bool {
		var ae *spannergorm.ArrayScanError
		return errors.As(err, &ae)
	})
}
