package structscan

import (
	"database/sql"
	"fmt"
	"reflect"
	"unsafe"

	"cloud.google.com/go/spanner"
)

// One returns a scanner of a STRUCT column into *dst. T is a struct type
// S (a NULL STRUCT is an error) or *S (NULL sets nil; otherwise a new S).
func One[T any](dst *T) sql.Scanner { return (*one[T])(unsafe.Pointer(dst)) }

// Slice returns a scanner of an ARRAY<STRUCT> column into *dst, a new
// slice each time. T is S (a NULL element is an error) or *S (a NULL
// element is nil; the elements share one block). A NULL array is nil.
func Slice[T any](dst *[]T) sql.Scanner { return (*slice[T])(dst) }

// The scanners are the destinations' own pointers, so that making one
// allocates nothing (a generic struct holding the pointer would be boxed).
type (
	one[T any]   struct{ v T }
	slice[T any] []T
)

var (
	_ sql.Scanner = (*one[struct{}])(nil)
	_ sql.Scanner = (*slice[struct{}])(nil)
)

// target splits T into its struct type and whether T is a pointer to it.
func target(t reflect.Type) (s reflect.Type, ptr bool, err error) {
	if isStruct(t) {
		return t, false, nil
	}
	if t.Kind() == reflect.Pointer && isStruct(t.Elem()) {
		return t.Elem(), true, nil
	}
	return nil, false, fmt.Errorf("spannerfast: cannot scan a STRUCT into %v: want a struct or a pointer to one", t)
}

func (o *one[T]) Scan(src any) error {
	s, ptr, err := target(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	if o == nil {
		return fmt.Errorf("spannerfast: scan of a STRUCT into a nil *%v", reflect.TypeFor[T]())
	}
	var row *spanner.Row
	switch v := src.(type) {
	case nil:
	case spanner.NullRow:
		if v.Valid {
			row = &v.Row
		}
	default:
		return fmt.Errorf("spannerfast: cannot scan %T into %v: only a STRUCT column scans into a struct", src, reflect.TypeFor[T]())
	}
	if row == nil {
		if !ptr {
			return &FieldError{GoType: s, Element: -1, Err: errNull}
		}
		*(*unsafe.Pointer)(unsafe.Pointer(o)) = nil
		return nil
	}
	p := planForRow(s, row)
	if !ptr {
		var zero T
		o.v = zero
		return p.decodeRow(unsafe.Pointer(o), row)
	}
	n := reflect.New(s).UnsafePointer()
	if err := p.decodeRow(n, row); err != nil {
		return err
	}
	*(*unsafe.Pointer)(unsafe.Pointer(o)) = n
	return nil
}

func (l *slice[T]) Scan(src any) error {
	s, ptr, err := target(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	if l == nil {
		return fmt.Errorf("spannerfast: scan of an ARRAY<STRUCT> into a nil *[]%v", reflect.TypeFor[T]())
	}
	var rows []spanner.NullRow
	switch v := src.(type) {
	case nil:
	case []spanner.NullRow:
		rows = v
	default:
		return fmt.Errorf("spannerfast: cannot scan %T into []%v: only an ARRAY<STRUCT> column scans into a slice of structs", src, reflect.TypeFor[T]())
	}
	if rows == nil {
		*l = nil
		return nil
	}
	out := make([]T, len(rows))
	var block unsafe.Pointer
	if ptr && len(rows) > 0 {
		block = reflect.MakeSlice(reflect.SliceOf(s), len(rows), len(rows)).UnsafePointer()
	}
	var p *plan
	for i := range rows {
		r := &rows[i]
		if !r.Valid {
			if !ptr {
				return &FieldError{GoType: s, Element: i, Err: errNull}
			}
			continue
		}
		if p == nil || !p.matches(&r.Row) {
			p = planForRow(s, &r.Row)
		}
		at := unsafe.Pointer(&out[i])
		if ptr {
			at = unsafe.Add(block, uintptr(i)*s.Size())
		}
		if err := p.decodeRow(at, &r.Row); err != nil {
			return atElement(err, i)
		}
		if ptr {
			*(*unsafe.Pointer)(unsafe.Pointer(&out[i])) = at
		}
	}
	*l = out
	return nil
}

func atElement(err error, i int) error {
	if fe, ok := err.(*FieldError); ok {
		c := *fe
		c.Element = i
		return &c
	}
	return fmt.Errorf("spannerfast: element %d: %w", i, err)
}
