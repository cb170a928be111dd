package conn

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// rewritePositional turns each `?` outside string literals, quoted
// identifiers and comments into @p1, @p2, ... and reports how many there were
// and whether the SQL also names @parameters (mixing the two is an error).
func rewritePositional(sql string) (out string, positional int, named bool) {
	// Copy only when there is something to rewrite: most statements have no
	// `?`, and building a copy of them would be work on every query.
	var b strings.Builder
	done := 0 // sql[:done] is in b already
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '?':
			positional++
			if b.Len() == 0 {
				b.Grow(len(sql) + 8)
			}
			b.WriteString(sql[done:i])
			b.WriteString("@p")
			b.WriteString(strconv.Itoa(positional))
			i++
			done = i
			continue
		case c == '@' && i+1 < len(sql) && isIdentStart(sql[i+1]):
			named = true
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i)
			continue
		case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '#':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			i += j
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				i += 2 + j + 2
			} else {
				i = len(sql)
			}
			continue
		}
		i++
	}
	if positional == 0 {
		return sql, 0, named
	}
	b.WriteString(sql[done:])
	return b.String(), positional, named
}

func isIdentStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// skipQuoted returns the index just past the literal or quoted identifier
// starting at i, honouring backslash escapes and triple quotes.
func skipQuoted(s string, i int) int {
	q := s[i]
	if i+2 < len(s) && s[i+1] == q && s[i+2] == q {
		end := strings.Index(s[i+3:], strings.Repeat(string(q), 3))
		if end < 0 {
			return len(s)
		}
		return i + 3 + end + 3
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

// ParamError reports an argument that cannot be sent to Spanner.
type ParamError struct {
	Name  string
	Value any
	Err   error
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("spannerfast: parameter @%s: unsupported value type %T: %v", e.Name, e.Value, e.Err)
}

// Unwrap returns the cause.
func (e *ParamError) Unwrap() error { return e.Err }

// GRPCStatus reports InvalidArgument.
func (e *ParamError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

// encodeParam converts a Go value to Spanner's wire value and type. The
// official client's encoder does the work (through a one-column Row), so
// every type it accepts (spanner.Null*, sql.Null* via driver.Valuer, big.Rat,
// civil.Date, uuid.UUID, slices, structs) is accepted here with the same
// meaning.
func encodeParam(name string, v any) (*structpb.Value, *spannerpb.Type, error) {
	if v == nil {
		return structpb.NewNullValue(), nil, nil
	}
	switch x := v.(type) {
	case int:
		v = int64(x)
	case int32:
		// Documented as accepted (as go-sql-spanner does); the official
		// client's encoder has no case for it.
		v = int64(x)
	case uint64:
		if x > 1<<63-1 {
			return nil, nil, &ParamError{Name: name, Value: v, Err: errors.New("value overflows INT64")}
		}
		v = int64(x)
	}
	row, err := spanner.NewRow([]string{name}, []any{v})
	var g spanner.GenericColumnValue
	if err == nil {
		err = row.Column(0, &g)
	}
	// A driver.Valuer the official encoder does not know is sent as its
	// Value: without this, a Valuer struct such as sql.Null[string] would
	// be encoded field by field as a STRUCT<V STRING, Valid BOOL>.
	if vr, ok := v.(driver.Valuer); ok && (err != nil || g.Type.GetCode() == spannerpb.TypeCode_STRUCT) {
		inner, verr := vr.Value()
		if verr != nil {
			return nil, nil, &ParamError{Name: name, Value: v, Err: verr}
		}
		return encodeParam(name, inner)
	}
	if err != nil {
		return nil, nil, &ParamError{Name: name, Value: v, Err: err}
	}
	return g.Value, g.Type, nil
}

// encodedParam is an argument already converted by CheckNamedValue.
type encodedParam struct {
	value *structpb.Value
	typ   *spannerpb.Type
}

// paramName is the Spanner parameter an argument binds to: its name, or
// pN for the N-th positional argument.
func paramName(a driver.NamedValue) string {
	if a.Name == "" {
		return "p" + strconv.Itoa(a.Ordinal)
	}
	return strings.TrimPrefix(a.Name, "@")
}

// buildParams rewrites positional parameters and encodes the arguments.
func buildParams(sql string, args []driver.NamedValue) (string, *structpb.Struct, map[string]*spannerpb.Type, error) {
	out, positional, named := rewritePositional(sql)
	if positional > 0 && named {
		return "", nil, nil, status.Errorf(codes.InvalidArgument,
			"spannerfast: statement mixes positional (?) and named (@name) parameters: %q", sql)
	}
	if len(args) == 0 {
		return out, nil, nil, nil
	}
	params := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(args))}
	types := make(map[string]*spannerpb.Type, len(args))
	for _, a := range args {
		name := paramName(a)
		e, ok := a.Value.(encodedParam)
		if !ok {
			val, typ, err := encodeParam(name, a.Value)
			if err != nil {
				return "", nil, nil, err
			}
			e = encodedParam{value: val, typ: typ}
		}
		params.Fields[name] = e.value
		if e.typ != nil {
			types[name] = e.typ
		}
	}
	return out, params, types, nil
}
