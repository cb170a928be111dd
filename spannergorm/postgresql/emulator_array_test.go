package spannerpg_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// arrays are array columns read into Array fields of other element types.
type arrays struct {
	Strs  spannergorm.Array[string]
	Ints  spannergorm.Array[int64]
	Small spannergorm.Array[int8]
}

// TestEmulatorArrayScanConverts: spannergorm.Array under this dialector
// converts as database/sql does: bigint elements into Array[string] are
// their decimal text, integral float8 elements into Array[int64] their
// numbers; a fraction, an element out of int8's range and a NULL are
// errors naming the column, the element and the types (issue 28).
func TestEmulatorArrayScanConverts(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannerpg.SpannerConfig{})
	var got arrays
	if err := db.Raw("SELECT ARRAY[65, 66]::bigint[] AS strs, ARRAY[2.0, -3.0]::float8[] AS ints, ARRAY[127, -128]::bigint[] AS small").Scan(&got).Error; err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Strs, ",") != "65,66" || len(got.Ints) != 2 || got.Ints[0] != 2 || got.Ints[1] != -3 || got.Small[0] != 127 {
		t.Fatalf("scanned %+v", got)
	}
	for _, c := range []struct{ query, want string }{
		{"SELECT ARRAY[2.0, 1.5]::float8[] AS ints", `name "ints": spannergorm: spannergorm.Array[int64].Scan: element 1 (spanner.NullFloat64 1.5): converting driver.Value type float64 ("1.5") to a int64`},
		{"SELECT ARRAY[300]::bigint[] AS small", `name "small": spannergorm: spannergorm.Array[int8].Scan: element 0 (spanner.NullInt64 300): converting driver.Value type int64 ("300") to a int8: value out of range`},
		{"SELECT ARRAY[1, NULL]::bigint[] AS ints", `name "ints": spannergorm: spannergorm.Array[int64].Scan: element 1 (spanner.NullInt64 <null>): NULL in an element type without NULL`},
	} {
		var dst arrays
		err := db.Raw(c.query).Scan(&dst).Error
		var ae *spannergorm.ArrayScanError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ae) {
			t.Errorf("%s: %+v, %v; want an error with %q", c.query, dst, err, c.want)
		}
	}
}
