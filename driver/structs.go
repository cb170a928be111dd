package driver

import (
	"database/sql"

	"github.com/spannerfast/spannerfast/internal/structscan"
)

// Struct returns a sql.Scanner that decodes a STRUCT column into *dst, for
// rows.Scan(driver.Struct(&v)). T is a struct type S, or *S to receive nil
// for a NULL STRUCT (a NULL into S is an error). Fields match by the
// official client's Row.ToStruct rules: a `spanner:"name"` tag or the field
// name, ignoring case; see docs/types.md.
//
// database/sql gives a driver no say in how a value is stored into a
// destination it does not know (it converts only to sql.Scanner,
// assignable and convertible types), so rows.Scan(&v) with a struct v
// cannot work; wrapping v in a Scanner is the closest form. The column's
// value stays spanner.NullRow for Scan into *spanner.NullRow or *any.
func Struct[T any](dst *T) sql.Scanner { return structscan.One(dst) }

// Structs returns a sql.Scanner that decodes an ARRAY<STRUCT> column into
// a new slice stored in *dst, for rows.Scan(driver.Structs(&vs)). T is a
// struct type S (a NULL element is an error) or *S (a NULL element is nil);
// a NULL array is a nil slice. Fields match as for Struct.
func Structs[T any](dst *[]T) sql.Scanner { return structscan.Slice(dst) }

// StructFieldError is the error of a Struct or Structs scan that names the
// Go field and the STRUCT field (and the ARRAY<STRUCT> element) at fault.
type StructFieldError = structscan.FieldError
