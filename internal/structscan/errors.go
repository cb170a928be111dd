package structscan

import (
	"fmt"
	"reflect"
)

// FieldError says which STRUCT field and which Go field a value could not
// be decoded for. Path is the Go field's path from the scanned type (dots
// through embedded and nested structs); Field the STRUCT field's name,
// dotted through nested STRUCTs. Element is the index of the ARRAY<STRUCT>
// element, or -1.
type FieldError struct {
	GoType  reflect.Type
	Path    string
	Field   string
	Element int
	Err     error
}

func (e *FieldError) Error() string {
	where := ""
	if e.Element >= 0 {
		where = fmt.Sprintf("element %d: ", e.Element)
	}
	if e.Path == "" {
		return fmt.Sprintf("spannerfast: %sSTRUCT field %q into %v: %v", where, e.Field, e.GoType, e.Err)
	}
	return fmt.Sprintf("spannerfast: %sSTRUCT field %q into Go field %v.%s: %v", where, e.Field, e.GoType, e.Path, e.Err)
}

// Unwrap returns the cause, so that errors.Is and status.Code see it.
func (e *FieldError) Unwrap() error { return e.Err }

// nested puts a nested struct's error under the outer field: the paths are
// joined and the outer type named.
func nested(outer reflect.Type, path, field string, err error) error {
	if fe, ok := err.(*FieldError); ok && fe.Element < 0 {
		p := path
		if fe.Path != "" {
			p += "." + fe.Path
		}
		return &FieldError{GoType: outer, Path: p, Field: field + "." + fe.Field, Element: -1, Err: fe.Err}
	}
	return &FieldError{GoType: outer, Path: path, Field: field, Element: -1, Err: err}
}
