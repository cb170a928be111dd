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

// StructSlice is a slice of structs that scans an ARRAY<STRUCT> column by
// itself: var lines driver.StructSlice[Line]; rows.Scan(&lines). It
// converts to and from []T; T and NULLs are as for Structs.
type StructSlice[T any] []T

// Scan implements sql.Scanner.
func (s *StructSlice[T]) Scan(src any) error { return structscan.Slice((*[]T)(s)).Scan(src) }

// NullStruct is a struct that scans a STRUCT column by itself, NULL
// included (Valid false), as sql.Null does for scalars:
// var o driver.NullStruct[Order]; rows.Scan(&o). T is a struct type.
type NullStruct[T any] struct {
	Struct T
	Valid  bool
}

// Scan implements sql.Scanner.
func (n *NullStruct[T]) Scan(src any) error {
	var p *T
	if err := structscan.One(&p).Scan(src); err != nil {
		return err
	}
	if p == nil {
		*n = NullStruct[T]{}
		return nil
	}
	n.Struct, n.Valid = *p, true
	return nil
}

var (
	_ sql.Scanner = (*StructSlice[struct{}])(nil)
	_ sql.Scanner = (*NullStruct[struct{}])(nil)
)
