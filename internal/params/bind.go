package params

import (
	"database/sql/driver"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// Binding: the arguments of a statement parsed once (internal/sqlparse) to
// its parameters, by name, by position, or for PostgreSQL $n by number.

// Names are a parsed statement's parameters (internal/sqlparse), as Bind
// reads them. They are shared with the statement cache: read only.
type Names struct {
	Sent     []string // Statement.Params: the names sent, without the @
	Written  []string // Statement.Named: PostgreSQL @name parameters as written (nil otherwise)
	Numbered bool     // Statement.Numbered: PostgreSQL $n, Sent sorted by number
}

// NamesOf are st's parameter names.
func NamesOf(st *sqlparse.Statement) Names {
	return Names{Sent: st.Params, Written: st.Named, Numbered: st.Numbered}
}

// NumInput is the number of arguments a prepared statement with these
// parameters takes, for database/sql to check, or -1 when no one count
// applies: a PostgreSQL statement whose $n skip a number ($1 and $3) takes
// 3 unnamed arguments (the second unused) or 2 named ones, so Bind checks.
func (n Names) NumInput() int {
	if n.Numbered {
		for i, name := range n.Sent {
			if sqlparse.CompareNumber(name, strconv.Itoa(i+1)) != 0 {
				return -1
			}
		}
	}
	return len(n.Sent)
}

// Bind binds the arguments of a statement already parsed (internal/sqlparse)
// to its parameters, in both dialects. sql is the text to send and n its
// parameters.
//
//   - An argument without a name binds the statement's parameter at its
//     own position among the arguments. PostgreSQL $n (n.Numbered): the
//     N-th argument binds $N, whatever the order the $n appear in, as in
//     PostgreSQL (go-sql-spanner binds them in order of first appearance,
//     so `$2 ... $1` takes its first argument for $2); an argument whose
//     number the statement does not use ($2 of `$1 ... $3`) is ignored.
//     Else, as go-sql-spanner binds: the N-th distinct parameter in order
//     of first appearance (p1..pN for `?`). Beyond the parameters it is
//     ignored.
//   - A named argument binds the parameter it names: a name as written in
//     the statement first (PostgreSQL @name: the $n it became), then a
//     parameter name as sent (p1, so sql.Named("p1", v) binds $1), then the
//     same two ignoring case. A name the statement does not use is sent as
//     it is.
//   - Every parameter must have a value, else *MissingParamError names it
//     as written (for $n: the lowest number without one). Values that
//     differ only in case serve each other.
//
// Strings (string, *string, []string, []*string) are sent untyped, so that
// Spanner infers their type from where they stand, unless typedStrings
// (the property send_typed_strings) asks for STRING and ARRAY<STRING>.
//
// Nothing here depends on the dialect but the names it is given, which the
// parse computed once.
func Bind(sql string, n Names, args []driver.NamedValue, typedStrings bool) (string, *structpb.Struct, map[string]*spannerpb.Type, error) {
	names, written := n.Sent, n.Written
	if len(args) == 0 && len(names) == 0 {
		return sql, nil, nil, nil
	}
	params := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(args))}
	types := make(map[string]*spannerpb.Type, len(args))
	next := 0 // Numbered: names[:next] have numbers below the argument's
	for i, a := range args {
		unwrapNamedArg(&a) // direct use, without CheckNamedValue
		var one [1]string
		var bound []string
		switch {
		case a.Name != "":
			one[0] = boundName(strings.TrimPrefix(a.Name, "@"), names, written)
			bound = one[:]
		case n.Numbered:
			bound, next = numbered(names, next, i+1)
		case i < len(names):
			bound = names[i : i+1]
		}
		if len(bound) == 0 {
			continue
		}
		e, ok := a.Value.(*encodedParam)
		if !ok {
			var err error
			if e, err = encodeArg(bound[0], a.Value); err != nil {
				return "", nil, nil, err
			}
		}
		for _, name := range bound {
			params.Fields[name] = e.value
			if typedStrings && e.strType != nil {
				types[name] = e.strType
			} else if e.typ != nil {
				types[name] = e.typ
			} else {
				delete(types, name) // a later untyped value replaced a typed one
			}
		}
	}
	for i, n := range names {
		if _, ok := params.Fields[n]; !ok && !hasFoldedParam(params, n) {
			if written != nil {
				n = written[i]
			}
			return "", nil, nil, &MissingParamError{Name: n}
		}
	}
	return sql, params, types, nil
}

// numbered returns the names (sorted by number) of the parameters $k,
// looking from names[from], where the names of lower numbers end: there is
// one, none (a number the statement skips or beyond its last), or several
// spellings of one number ($1 and $01). It allocates nothing.
func numbered(names []string, from, k int) ([]string, int) {
	var buf [20]byte
	digits := string(strconv.AppendInt(buf[:0], int64(k), 10))
	for from < len(names) && sqlparse.CompareNumber(names[from], digits) < 0 {
		from++
	}
	end := from
	for end < len(names) && sqlparse.CompareNumber(names[end], digits) == 0 {
		end++
	}
	return names[from:end], from
}

// boundName is the parameter a named argument binds (see Bind): names and
// written are the statement's, written[i] being the spelling of names[i].
func boundName(name string, names, written []string) string {
	if i := slices.Index(written, name); i >= 0 {
		return names[i]
	}
	if slices.Contains(names, name) {
		return name
	}
	if i := sqlparse.FindName(written, name); i >= 0 {
		return names[i]
	}
	if i := sqlparse.FindName(names, name); i >= 0 {
		return names[i]
	}
	return name
}

// hasFoldedParam reports whether a parameter whose name differs from n only
// in case has a value. Spanner reads parameter names without regard to case,
// so @id and @ID in one statement are served by one value when only one
// was given (go-sql-spanner refuses that statement; spannerfast sends it).
func hasFoldedParam(params *structpb.Struct, n string) bool {
	for k := range params.Fields {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

// MissingParamError reports a statement parameter that no argument binds.
// Its text is go-sql-spanner's, in the official client's error format
// (programs and tests written for go-sql-spanner compare it), and names
// the parameter as the statement writes it.
type MissingParamError struct {
	Name string // without the @
}

func (e *MissingParamError) Error() string {
	return fmt.Sprintf("spanner: code = %q, desc = %q", codes.InvalidArgument, e.desc())
}

func (e *MissingParamError) desc() string {
	return "missing value for query parameter @" + e.Name
}

// GRPCStatus reports InvalidArgument.
func (e *MissingParamError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.desc())
}
