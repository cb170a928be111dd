package spannergorm

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"reflect"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Array.Scan converts each element exactly as database/sql converts a
// column's value into a Scan destination of type T (sql.Null[T].Scan
// runs database/sql's own conversion), so an ARRAY column scanned into
// Array[T] gives what its elements would give as columns scanned into T:
// a number into a string is its decimal text (65 gives "65", not "A"); a
// number or a string into an integer or float type is its text parsed
// for that type, so a fraction (1.5 into int64), a value out of the
// type's range (300 into int8) or text that is no number is an error,
// never a truncated value; a float into an integer type must be written
// as an integer by strconv's shortest form ('g'), so 2.0 gives 2 and
// 1e+06 is refused. database/sql also rounds an integer to the nearest
// float64 in a float destination (beyond 2^53), and Array does the same.
// An element that is a driver.Valuer (the driver's spanner.Null*
// elements) is converted from its Value; a T that is an sql.Scanner
// (spanner.NullInt64...) scans each element itself, NULL included; NULL
// into any other T is an error.

// ArrayScanError is Array.Scan's error: the value is not an array, or one
// of its elements cannot be stored in the element type. It has gRPC code
// InvalidArgument; database/sql puts the column's index and name in front
// of it (sql: Scan error on column index N, name "X": ...) and keeps it
// for errors.As.
type ArrayScanError struct {
	Array string // the destination type, e.g. spannergorm.Array[int64]
	Index int    // the element; -1 when the value is not an array
	Value any    // the element's value (the whole value when Index is -1)
	Err   error  // database/sql's conversion error, or errNullElement
}

// errNullElement is the error of a NULL element into a T that has no NULL.
var errNullElement = errors.New("NULL in an element type without NULL")

func (e *ArrayScanError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("spannergorm: cannot scan %T into %s", e.Value, e.Array)
	}
	return fmt.Sprintf("spannergorm: %s.Scan: element %d (%T %v): %v", e.Array, e.Index, e.Value, e.Value, e.Err)
}

func (e *ArrayScanError) Unwrap() error { return e.Err }

// GRPCStatus reports InvalidArgument.
func (e *ArrayScanError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

var _ sql.Scanner = (*Array[int64])(nil)

// Scan implements sql.Scanner.
func (a *Array[T]) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*a = nil
		return nil
	case []T:
		*a = v
		return nil
	}
	name := fmt.Sprintf("%T", *a)
	rv := reflect.ValueOf(src)
	if rv.Kind() != reflect.Slice {
		return &ArrayScanError{Array: name, Index: -1, Value: src}
	}
	if rv.IsNil() { // a NULL array
		*a = nil
		return nil
	}
	out := make(Array[T], rv.Len())
	for i := range out {
		elem := rv.Index(i).Interface()
		if err := scanElement(&out[i], elem); err != nil {
			return &ArrayScanError{Array: name, Index: i, Value: elem, Err: err}
		}
	}
	*a = out
	return nil
}

// scanElement stores one element as database/sql would store a column's
// value in a *T.
func scanElement[T any](dst *T, elem any) error {
	elem, err := plainValue(elem)
	if err != nil {
		return err
	}
	if sc, ok := any(dst).(sql.Scanner); ok {
		return sc.Scan(elem)
	}
	if elem == nil {
		return errNullElement
	}
	var n sql.Null[T]
	if err := n.Scan(elem); err != nil {
		return err
	}
	*dst = n.V
	return nil
}

// plainValue is an element as database/sql would see it from a driver:
// a pointer's target (nil for a nil pointer), then a Valuer's Value.
func plainValue(elem any) (any, error) {
	if rv := reflect.ValueOf(elem); rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, nil
		}
		elem = rv.Elem().Interface()
	}
	if vr, ok := elem.(sqldriver.Valuer); ok {
		return vr.Value()
	}
	return elem, nil
}
