package sqlparse

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Kind is what a statement's first keyword says it is.
type Kind uint8

const (
	Query  Kind = iota // SELECT, WITH, GRAPH, FROM, and any keyword not listed below
	DML                // INSERT, UPDATE, DELETE
	DDL                // CREATE, DROP, ALTER, ANALYZE, GRANT, REVOKE, RENAME
	Client             // SET, SHOW, RESET, BEGIN, COMMIT, ROLLBACK, START, RUN, ABORT, PARTITION: run by the driver
)

// DMLKind is the kind of change a DML statement makes.
type DMLKind uint8

const (
	NotDML DMLKind = iota
	Insert
	Update
	Delete
)

// Statement is a parsed statement. A Statement from a Cache is shared: its
// Params must not be modified.
type Statement struct {
	Kind    Kind
	DML     DMLKind
	Keyword string // the first keyword, upper case ("" if there is none)
	// SQL is the text to send: positional `?` parameters become @p1, @p2...
	// For client-side statements it is the input, unchanged.
	SQL string
	// Params are the distinct parameter names without the @ (p1..pN for
	// `?`); client-side statements have none.
	Params []string
	// Multi is set when a top-level semicolon is followed by another
	// statement: the text holds several statements (see Split). SQL is
	// then the input unchanged and Params is nil; Kind and Keyword
	// describe the first statement only.
	Multi bool

	// ThenReturn reports DML that returns rows: THEN RETURN (or
	// PostgreSQL's RETURNING) outside literals and comments.
	ThenReturn bool
	// Database is CREATE DATABASE or DROP DATABASE among DDL statements.
	Database DatabaseOp
	// DatabaseName is the database id of DROP DATABASE (Invalid says why
	// there is none).
	DatabaseName string
	// Client is the parsed form of a client-side statement; nil for other
	// kinds and when Multi is set. It is shared like Params: read only.
	Client *ClientStatement
	// Invalid is why a statement that scans is still malformed (a client-
	// side statement's syntax, PARTITION's inner query, DROP DATABASE's
	// name). Parse does not return it: the statement's executor reports it
	// when it runs the statement, after the checks that come first (an
	// open transaction for SET TRANSACTION...), as it always did. It is
	// cached with the statement; the text is never read again.
	Invalid error

	rest string // the text after the keyword, trimmed: what the grammars read
}

// DatabaseOp says whether a DDL statement creates or drops a database.
type DatabaseOp uint8

const (
	NoDatabaseOp   DatabaseOp = iota
	CreateDatabase            // CREATE DATABASE ...
	DropDatabase              // DROP DATABASE name
)

var (
	// ErrUnclosedLiteral: a string or bytes literal or a quoted identifier
	// has no closing quote (or a one-quote literal has a line feed).
	ErrUnclosedLiteral = errors.New("SQL statement contains an unclosed literal")
	// ErrUnclosedComment: a /* comment has no */.
	ErrUnclosedComment = errors.New("SQL statement contains an unclosed comment")
	// ErrMixedParams: the statement uses both `?` and @name.
	ErrMixedParams = errors.New("statement mixes positional (?) and named (@name) parameters")
)

// SyntaxError is a statement the driver cannot scan. It unwraps to one of
// the Err variables and carries gRPC code InvalidArgument.
type SyntaxError struct {
	SQL    string
	Offset int    // where the offending literal, comment or parameter starts
	What   string // e.g. "triple-quoted raw string literal"
	Err    error
}

func syntaxError(sql string, offset int, err error, what string) *SyntaxError {
	return &SyntaxError{SQL: sql, Offset: offset, What: what, Err: err}
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("spannerfast: %v (%s at offset %d): %q", e.Err, e.What, e.Offset, e.SQL)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// GRPCStatus reports InvalidArgument.
func (e *SyntaxError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

// Parse classifies sql and scans its parameters. It never panics; any text
// gives a Statement or a *SyntaxError.
func Parse(sql string) (Statement, error) {
	return parse(sql, true)
}

// parse is Parse; withClient false leaves a client-side statement's form
// unread (the query of a partition statement must be a query: its form
// would never be used, and the parse does not recurse).
func parse(sql string, withClient bool) (Statement, error) {
	st, form, err := classify(sql)
	if err != nil {
		return st, err
	}
	st.SQL = sql
	if st.Kind == Client {
		// Client-side statements take no parameters, but their literals
		// and comments must still be closed.
		if _, _, st.Multi, err = scan(sql, false); err == nil && !st.Multi && withClient {
			parseClient(&st, form)
		}
		return st, err
	}
	st.SQL, st.Params, st.Multi, err = scan(sql, true)
	if st.Multi {
		// Each statement is parsed on its own when it runs: parameters
		// number from 1 in each, and one may use ? where another uses @x.
		st.SQL, st.Params = sql, nil
		return st, err
	}
	if err == nil {
		switch st.Kind {
		case DML:
			st.ThenReturn = hasThenReturn(st.rest)
		case DDL:
			parseDatabaseOp(&st)
		}
	}
	return st, err
}

// Split cuts sql at its top-level semicolons (not those in literals,
// quoted identifiers or comments) into statements, trimmed of white space.
// Pieces holding nothing but white space and comments are dropped, so
// trailing and doubled semicolons are allowed. An unclosed literal or
// comment is a *SyntaxError.
func Split(sql string) ([]string, error) {
	var out []string
	start := 0
	for i := 0; i <= len(sql); {
		if i < len(sql) && sql[i] != ';' {
			_, end, err := next(sql, i)
			if err != nil {
				return nil, err
			}
			i = end
			continue
		}
		piece := sql[start:i]
		if j, _ := skipBlank(piece, 0); j < len(piece) {
			out = append(out, strings.TrimSpace(piece))
		}
		i++
		start = i
	}
	return out, nil
}

// moreAfter reports whether anything but white space, comments and
// semicolons follows sql[i].
func moreAfter(sql string, i int) bool {
	for i < len(sql) {
		k, end, err := next(sql, i)
		if err != nil || (k != tokSpace && k != tokComment && sql[i] != ';') {
			return true
		}
		i = end
	}
	return false
}

// classify finds the first keyword after white space, comments and a
// statement hint.
func classify(sql string) (Statement, clientForm, error) {
	i, err := skipBlank(sql, 0)
	if err != nil {
		return Statement{}, formNone, err
	}
	if strings.HasPrefix(sql[i:], "@{") {
		if i, err = skipHint(sql, i+2); err != nil {
			return Statement{}, formNone, err
		}
		if i, err = skipBlank(sql, i); err != nil {
			return Statement{}, formNone, err
		}
	}
	j := i
	if j < len(sql) && isIdentStart(sql[j]) {
		j = identEnd(sql, j+1)
	}
	st := Statement{Kind: Query, rest: strings.TrimSpace(sql[j:])}
	word := sql[i:j]
	if k := googleSQL.lookup(word); k != nil {
		st.Keyword, st.Kind, st.DML = k.word, k.kind, k.dml
		return st, k.form, nil
	}
	st.Keyword = strings.ToUpper(word)
	return st, formNone, nil
}

// skipBlank skips white space and comments.
func skipBlank(sql string, i int) (int, error) {
	for i < len(sql) {
		k, end, err := next(sql, i)
		if err != nil {
			return 0, err
		}
		if k != tokSpace && k != tokComment {
			break
		}
		i = end
	}
	return i, nil
}

// skipHint returns the position after the } that ends a statement hint
// whose body starts at i (or len(sql) if it never ends).
func skipHint(sql string, i int) (int, error) {
	for i < len(sql) {
		if sql[i] == '}' {
			return i + 1, nil
		}
		_, end, err := next(sql, i)
		if err != nil {
			return 0, err
		}
		i = end
	}
	return i, nil
}

// scan collects the parameters and, if rewrite, replaces each `?` with
// @pN. Text without `?` is returned as it is, without a copy. multi
// reports a top-level semicolon followed by another statement; the
// parameters are then not checked (each statement is parsed again).
func scan(sql string, rewrite bool) (out string, params []string, multi bool, err error) {
	var b strings.Builder
	var names []string
	done, positional, named := 0, 0, -1 // sql[:done] is in b already
	for i := 0; i < len(sql); {
		k, end, err := next(sql, i)
		if err != nil {
			return sql, nil, false, err
		}
		switch k {
		case tokText:
			if sql[i] == ';' && !multi && moreAfter(sql, end) {
				multi = true
			}
		case tokNamed:
			if named < 0 {
				named = i
			}
			names = addName(names, sql[i+1:end])
		case tokPositional:
			if positional++; !rewrite {
				break
			}
			if b.Len() == 0 {
				b.Grow(len(sql) + 8)
			}
			b.WriteString(sql[done:i])
			b.WriteString("@p")
			b.WriteString(strconv.Itoa(positional))
			if end < len(sql) && isIdentPart(sql[end]) {
				b.WriteByte(' ')
			}
			done = end
		}
		i = end
	}
	if multi {
		return sql, nil, true, nil
	}
	if positional > 0 && named >= 0 {
		return sql, nil, false, syntaxError(sql, named, ErrMixedParams, "@"+names[0])
	}
	if !rewrite {
		return sql, nil, false, nil
	}
	if positional == 0 {
		return sql, names, false, nil
	}
	b.WriteString(sql[done:])
	names = make([]string, positional)
	for n := range names {
		names[n] = "p" + strconv.Itoa(n+1)
	}
	return b.String(), names, false, nil
}

// addName appends name unless names has it already. Names that differ in
// case are kept apart, as go-sql-spanner keeps them (@id and @ID are two
// parameters there); binding decides what a value in another case binds to.
func addName(names []string, name string) []string {
	if !slices.Contains(names, name) {
		names = append(names, name)
	}
	return names
}

// FindName is the index of name in names, ignoring case, or -1. Statements
// have few parameters (Spanner allows 950), so a linear search is enough.
func FindName(names []string, name string) int {
	for i, n := range names {
		if len(n) == len(name) && strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}
