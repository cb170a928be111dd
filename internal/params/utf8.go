package params

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// Spanner's strings are UTF-8, and so is every string field of a request:
// gRPC's marshalling refuses a request holding invalid UTF-8 with an
// Internal error that names nothing. So each encoded argument is checked
// here (utf8.ValidString, no allocation) and refused with InvalidArgument
// naming it before anything is sent; statements' text is checked by their
// parse (sqlparse.ErrInvalidUTF8).

// InvalidUTF8Error reports a value that is not valid UTF-8: a parameter's
// string (or an element of it) or a mutation's column value.
type InvalidUTF8Error struct {
	Name   string // the parameter, without the @ (a mutation's value: the column)
	Table  string // a mutation's value: its table (else "")
	Path   string // where in the value the string is: "" for the value itself, "[2]" for an element...
	Offset int    // the first invalid byte in the string
	IsName bool   // Name itself (a mutation's table or column name) is the invalid string
}

func (e *InvalidUTF8Error) Error() string {
	what := "parameter @" + e.Name
	if e.IsName {
		what = "the table or column name " + strconv.Quote(e.Name) + " of a mutation"
	} else if e.Table != "" {
		what = "the value of column " + e.Name + " of a mutation of table " + e.Table
	}
	if e.Path != "" {
		what += " element " + e.Path
	}
	return fmt.Sprintf("spannerfast: %s is not valid UTF-8 (invalid byte at offset %d): Spanner strings must be UTF-8; send binary data as []byte (BYTES)", what, e.Offset)
}

// GRPCStatus reports InvalidArgument.
func (e *InvalidUTF8Error) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

// CheckUTF8 returns an *InvalidUTF8Error naming name when a string in v
// (at any depth of lists and structs) is not valid UTF-8, else nil.
func CheckUTF8(name string, v *structpb.Value) error {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		if !utf8.ValidString(k.StringValue) {
			return &InvalidUTF8Error{Name: name, Offset: sqlparse.InvalidUTF8At(k.StringValue)}
		}
	case *structpb.Value_ListValue:
		for i, e := range k.ListValue.GetValues() {
			if err := CheckUTF8(name, e); err != nil {
				return within(err, "["+strconv.Itoa(i)+"]")
			}
		}
	case *structpb.Value_StructValue:
		for f, e := range k.StructValue.GetFields() {
			if !utf8.ValidString(f) {
				return &InvalidUTF8Error{Name: name, Path: "field name", Offset: sqlparse.InvalidUTF8At(f)}
			}
			if err := CheckUTF8(name, e); err != nil {
				return within(err, "."+f)
			}
		}
	}
	return nil
}

// within puts the path of an element before err's.
func within(err error, path string) error {
	e := err.(*InvalidUTF8Error)
	e.Path = path + e.Path
	return e
}

// CheckMutationsUTF8 returns an *InvalidUTF8Error naming the table and
// column of the first string value of mutations (or of a delete's key)
// that is not valid UTF-8: gRPC's marshalling would fail the whole commit
// with an Internal error naming nothing.
func CheckMutationsUTF8(ms []*spannerpb.Mutation) error {
	for _, m := range ms {
		// At most one of these is set: the write of an insert, update,
		// insert-or-update or replace.
		for _, w := range []*spannerpb.Mutation_Write{m.GetInsert(), m.GetUpdate(), m.GetInsertOrUpdate(), m.GetReplace()} {
			if w == nil {
				continue
			}
			if err := CheckNamesUTF8(w.GetTable(), w.GetColumns()); err != nil {
				return err
			}
			for _, row := range w.GetValues() {
				if err := CheckRowUTF8(w.GetTable(), w.GetColumns(), row); err != nil {
					return err
				}
			}
		}
		if d := m.GetDelete(); d != nil {
			if err := CheckNamesUTF8(d.GetTable(), nil); err != nil {
				return err
			}
			for _, k := range d.GetKeySet().GetKeys() {
				if err := mutationUTF8(d.GetTable(), "key", structpb.NewListValue(k)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// CheckNamesUTF8 returns an *InvalidUTF8Error (IsName) when the table or
// a column name of a mutation is not valid UTF-8: the commit's encoder
// would send it, and Spanner refuse it naming nothing.
func CheckNamesUTF8(table string, cols []string) error {
	if !utf8.ValidString(table) {
		return nameError(table, table)
	}
	for _, c := range cols {
		if !utf8.ValidString(c) {
			return nameError(table, c)
		}
	}
	return nil
}

// nameError is CheckNamesUTF8's error for name, a name of a mutation of
// table.
func nameError(table, name string) error {
	return &InvalidUTF8Error{Name: name, Table: table, IsName: true, Offset: sqlparse.InvalidUTF8At(name)}
}

// CheckRowUTF8 is CheckMutationsUTF8 for one row of a write of cols to
// table.
func CheckRowUTF8(table string, cols []string, row *structpb.ListValue) error {
	for i, v := range row.GetValues() {
		if i < len(cols) {
			if err := mutationUTF8(table, cols[i], v); err != nil {
				return err
			}
		}
	}
	return nil
}

// mutationUTF8 is CheckUTF8 for the value of column col of a mutation of
// table.
func mutationUTF8(table, col string, v *structpb.Value) error {
	err := CheckUTF8(col, v)
	if err == nil {
		return nil // errors.As's target would escape: one allocation per value
	}
	var ue *InvalidUTF8Error
	if errors.As(err, &ue) {
		ue.Table = table
	}
	return err
}
