package mutationpb

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var errNilMutation = errors.New("mutation is nil")

// Error reports a mutation that cannot be converted. It always has code
// InvalidArgument: the mutation, not the server, is at fault.
type Error struct {
	Index  int    // position of the mutation in the slice given to Convert
	Table  string // table, or queue for Send and Ack; "" if not known
	Column string // column whose value failed; "" if the failure is not a column value
	Part   string // "key" or "payload" when that failed instead of a column value
	Err    error  // the cause, usually the client's *spanner.Error
}

func (e *Error) Error() string {
	where := fmt.Sprintf("mutation %d", e.Index)
	if e.Table != "" {
		where += fmt.Sprintf(" (table %q", e.Table)
		switch {
		case e.Column != "":
			where += fmt.Sprintf(", column %q", e.Column)
		case e.Part != "":
			where += ", " + e.Part
		}
		where += ")"
	}
	return fmt.Sprintf("spannerfast: %s: %v", where, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// GRPCStatus reports InvalidArgument.
func (e *Error) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

// locate turns the client's error for a batch, which names neither the
// mutation nor the column, into an *Error that does. It runs only on the
// error path, so it may convert mutations again one by one.
func locate(ms []*spanner.Mutation, err error) error {
	for i, m := range ms {
		if _, _, e := clientMutationsProto(ms[i : i+1]); e != nil {
			return describe(i, m, e)
		}
	}
	// The batch failed but no single mutation does: cannot happen with the
	// validated client; report the error unlocated rather than guess.
	return &Error{Index: -1, Err: err}
}

// describe finds the table (or queue) and the failing column of m by
// re-encoding its parts alone. The client keeps them unexported; if its
// fields ever change, the error still carries the index and cause, and
// TestErrorNamesTableAndColumn fails.
func describe(i int, m *spanner.Mutation, err error) *Error {
	e := &Error{Index: i, Err: err}
	f := mutationFields{reflect.ValueOf(m).Elem()}
	e.Table, _ = f.get("table").(string)
	if e.Table == "" {
		e.Table, _ = f.get("queue").(string)
	}
	cols, _ := f.get("columns").([]string)
	vals, _ := f.get("values").([]interface{})
	for j, col := range cols {
		if j < len(vals) && fails(spanner.InsertOrUpdate(e.Table, []string{col}, []interface{}{vals[j]})) {
			e.Column = col
			return e
		}
	}
	if key, ok := f.get("key").(spanner.Key); ok && fails(spanner.Ack(e.Table, key)) {
		e.Part = "key"
		return e
	}
	if f.get("payload") != nil {
		e.Part = "payload"
		return e
	}
	if f.get("keySet") != nil {
		e.Part = "key"
	}
	return e
}

func fails(m *spanner.Mutation) bool {
	_, _, err := clientMutationsProto([]*spanner.Mutation{m})
	return err != nil
}

// mutationFields reads unexported fields of an addressable spanner.Mutation.
type mutationFields struct{ v reflect.Value }

// get returns the named field's value, or nil if there is no such field.
func (f mutationFields) get(name string) any {
	fv := f.v.FieldByName(name)
	if !fv.IsValid() {
		return nil
	}
	// reflect refuses Interface() on unexported fields; reading through a
	// pointer to the field's own type is the sanctioned way around it.
	return reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem().Interface()
}
