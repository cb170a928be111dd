package sqlparse

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// (PostgreSQL: `?` and @name become $1, $2...). For client-side
	// statements it is the input, unchanged.
	SQL string
	// Params are the distinct parameter names without the @ (p1..pN for
	// `?`); client-side statements have none. PostgreSQL: $n is named pn
	// (the name Spanner's PostgreSQL interface binds it to), ordered by
	// their number (Numbered is set); `?` and @name are p1..pN.
	Params []string
	// Numbered is set for a PostgreSQL statement written with $n
	// parameters: the n-th unnamed argument binds $n whatever the order
	// the $n appear in, as in PostgreSQL. Params is then sorted by number.
	Numbered bool
	// Named is set only for a PostgreSQL statement written with @name
	// parameters, which scanning rewrote to $1, $2...: Named[i] is the
	// name as written (without the @) of Params[i], for binding arguments
	// given by name. It is shared like Params: read only.
	Named []string
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
	// ErrMixedParams: the statement uses two styles of parameters: `?`
	// and @name (PostgreSQL: and $n). Its *SyntaxError's text is
	// go-sql-spanner's: "statement must only use one parameter style".
	ErrMixedParams = errors.New("statement mixes positional (?) and named (@name) parameters")
	// ErrInvalidUTF8: the text is not valid UTF-8, which Spanner (and
	// gRPC's marshalling of the request) refuses. Offset is the first
	// invalid byte.
	ErrInvalidUTF8 = errors.New("SQL statement is not valid UTF-8")
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
	if e.Err == ErrMixedParams {
		// go-sql-spanner's text for this error, in the official client's
		// error format: programs and tests written for go-sql-spanner
		// compare it. The offending parameter is in What and Offset.
		return fmt.Sprintf("spanner: code = %q, desc = %q", codes.InvalidArgument, e.desc())
	}
	return fmt.Sprintf("spannerfast: %v (%s at offset %d): %q", e.Err, e.What, e.Offset, e.SQL)
}

// desc is the error's description, the message of its gRPC status.
func (e *SyntaxError) desc() string {
	if e.Err == ErrMixedParams {
		return "statement must only use one parameter style (named or positional): " + e.SQL
	}
	return e.Error()
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// GRPCStatus reports InvalidArgument.
func (e *SyntaxError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.desc())
}

// Parse classifies the GoogleSQL statement sql and scans its parameters.
// It never panics; any text gives a Statement or a *SyntaxError. It is
// ParseDialect(GoogleSQL, sql).
func Parse(sql string) (Statement, error) {
	return parse(&googleSQL, sql, true)
}

// ParseDialect is Parse for a statement in dialect d.
func ParseDialect(d Dialect, sql string) (Statement, error) {
	return parse(d.rules(), sql, true)
}

// parse is Parse; withClient false leaves a client-side statement's form
// unread (the query of a partition statement must be a query: its form
// would never be used, and the parse does not recurse).
func parse(d *dialect, sql string, withClient bool) (Statement, error) {
	if !utf8.ValidString(sql) {
		return Statement{SQL: sql}, syntaxError(sql, InvalidUTF8At(sql), ErrInvalidUTF8, "invalid byte")
	}
	st, form, err := classify(d, sql)
	if err != nil {
		return st, err
	}
	st.SQL = sql
	if st.Kind == Client {
		// Client-side statements take no parameters, but their literals
		// and comments must still be closed.
		var sc scanned
		if sc, err = scan(d, sql, false); err == nil && !sc.multi && withClient {
			parseClient(d, &st, form)
		}
		st.Multi = sc.multi
		return st, err
	}
	sc, err := scan(d, sql, true)
	st.SQL, st.Params, st.Named, st.Numbered, st.Multi = sc.sql, sc.params, sc.named, sc.numbered, sc.multi
	if st.Multi {
		// Each statement is parsed on its own when it runs: parameters
		// number from 1 in each, and one may use ? where another uses @x.
		st.SQL, st.Params, st.Named, st.Numbered = sql, nil, nil, false
		return st, err
	}
	if err == nil {
		switch st.Kind {
		case DML:
			st.ThenReturn = hasThenReturn(d, st.rest)
		case DDL:
			parseDatabaseOp(d, &st)
		}
	}
	return st, err
}

// Split cuts sql at its top-level semicolons (not those in literals,
// quoted identifiers or comments) into statements, trimmed of white space.
// Pieces holding nothing but white space and comments are dropped, so
// trailing and doubled semicolons are allowed. An unclosed literal or
// comment is a *SyntaxError. It is SplitDialect(GoogleSQL, sql).
func Split(sql string) ([]string, error) {
	return split(&googleSQL, sql)
}

// SplitDialect is Split for statements in dialect d.
func SplitDialect(d Dialect, sql string) ([]string, error) {
	return split(d.rules(), sql)
}

func split(d *dialect, sql string) ([]string, error) {
	var out []string
	start := 0
	for i := 0; i <= len(sql); {
		if i < len(sql) && sql[i] != ';' {
			_, end, err := d.next(sql, i)
			if err != nil {
				return nil, err
			}
			i = end
			continue
		}
		piece := sql[start:i]
		if j, _ := skipBlank(d, piece, 0); j < len(piece) {
			out = append(out, strings.TrimSpace(piece))
		}
		i++
		start = i
	}
	return out, nil
}

// moreAfter reports whether anything but white space, comments and
// semicolons follows sql[i].
func moreAfter(d *dialect, sql string, i int) bool {
	for i < len(sql) {
		k, end, err := d.next(sql, i)
		if err != nil || (k != tokSpace && k != tokComment && sql[i] != ';') {
			return true
		}
		i = end
	}
	return false
}

// classify finds the first keyword after white space, comments and a
// statement hint (GoogleSQL's @{...}; PostgreSQL's /*@ ... */ is a comment).
func classify(d *dialect, sql string) (Statement, clientForm, error) {
	i, err := skipBlank(d, sql, 0)
	if err != nil {
		return Statement{}, formNone, err
	}
	if !d.pg && strings.HasPrefix(sql[i:], "@{") {
		if i, err = skipHint(sql, i+2); err != nil {
			return Statement{}, formNone, err
		}
		if i, err = skipBlank(d, sql, i); err != nil {
			return Statement{}, formNone, err
		}
	}
	j := i
	if j < len(sql) && isIdentStart(sql[j]) {
		if d.pg {
			j = identEndPG(sql, j+1)
		} else {
			j = identEnd(sql, j+1)
		}
	}
	st := Statement{Kind: Query, rest: strings.TrimSpace(sql[j:])}
	word := sql[i:j]
	if k := d.lookup(word); k != nil {
		st.Keyword, st.Kind, st.DML = k.word, k.kind, k.dml
		return st, k.form, nil
	}
	st.Keyword = strings.ToUpper(word)
	return st, formNone, nil
}

// skipBlank skips white space and comments.
func skipBlank(d *dialect, sql string, i int) (int, error) {
	for i < len(sql) {
		k, end, err := d.next(sql, i)
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
// whose body starts at i (or len(sql) if it never ends). GoogleSQL only.
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

// scanned is what scan found.
type scanned struct {
	sql    string   // the text to send
	params []string // Statement.Params
	named  []string // Statement.Named
	multi  bool     // a top-level semicolon is followed by another statement

	numbered bool // Statement.Numbered
}

// scan collects the parameters and, if rewrite, replaces each `?` with
// @pN (PostgreSQL: see scanPG). Text without `?` is returned as it is,
// without a copy. multi reports a top-level semicolon followed by another
// statement; the parameters are then not checked (each statement is parsed
// again).
func scan(d *dialect, sql string, rewrite bool) (scanned, error) {
	if d.pg {
		return scanPG(sql, rewrite)
	}
	var b strings.Builder
	var names []string
	multi := false
	done, positional, named := 0, 0, -1 // sql[:done] is in b already
	for i := 0; i < len(sql); {
		k, end, err := next(sql, i)
		if err != nil {
			return scanned{sql: sql}, err
		}
		switch k {
		case tokText:
			if sql[i] == ';' && !multi && moreAfter(&googleSQL, sql, end) {
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
		return scanned{sql: sql, multi: true}, nil
	}
	if positional > 0 && named >= 0 {
		return scanned{sql: sql}, syntaxError(sql, named, ErrMixedParams, "@"+names[0])
	}
	if !rewrite {
		return scanned{sql: sql}, nil
	}
	if positional == 0 {
		return scanned{sql: sql, params: names}, nil
	}
	b.WriteString(sql[done:])
	return scanned{sql: b.String(), params: positionalNames(positional)}, nil
}

// positionalNames are p1..pn.
func positionalNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "p" + strconv.Itoa(i+1)
	}
	return names
}

// scanPG is scan for PostgreSQL. $n stays as written and is the parameter
// pn; the names are sorted by number (see Statement.Numbered). As in
// go-sql-spanner, `?` is rewritten to $1, $2... (p1, p2...), and @name to
// $1, $2... in the order the distinct names first appear (p1, p2..., with
// the names as written in scanned.named). One statement uses
// one of the three styles: mixing them is ErrMixedParams. A rewritten
// parameter gets a space before it after a word and after it before a word
// or a $, so it cannot join a neighbour (PostgreSQL identifiers may hold
// $: x$1 is one word).
func scanPG(sql string, rewrite bool) (scanned, error) {
	var b strings.Builder
	var params, names []string
	multi := false
	done, positional := 0, 0    // sql[:done] is in b already
	first := [3]int{-1, -1, -1} // where the first ?, $n and @name are
	for i := 0; i < len(sql); {
		k, end, err := nextPG(sql, i)
		if err != nil {
			return scanned{sql: sql}, err
		}
		var n int // the number a rewritten parameter gets
		switch k {
		case tokText:
			if sql[i] == ';' && !multi && moreAfter(&postgreSQL, sql, end) {
				multi = true
			}
		case tokNumbered:
			if first[1] < 0 {
				first[1] = i
			}
			if !multi {
				params = addName(params, "p"+sql[i+1:end])
			}
		case tokPositional:
			if first[0] < 0 {
				first[0] = i
			}
			positional++
			n = positional
		case tokNamed:
			if first[2] < 0 {
				first[2] = i
			}
			name := sql[i+1 : end]
			if n = slices.Index(names, name) + 1; n == 0 {
				names = append(names, name)
				n = len(names)
			}
		}
		if n > 0 && rewrite {
			if b.Len() == 0 {
				b.Grow(len(sql) + 8)
			}
			b.WriteString(sql[done:i])
			if s := b.String(); s != "" && (isIdentPart(s[len(s)-1]) || s[len(s)-1] == '$' || s[len(s)-1] >= 0x80) {
				b.WriteByte(' ')
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			if end < len(sql) && (isIdentPart(sql[end]) || sql[end] == '$' || sql[end] >= 0x80) {
				b.WriteByte(' ')
			}
			done = end
		}
		i = end
	}
	if multi {
		return scanned{sql: sql, multi: true}, nil
	}
	styles := 0
	for _, at := range first {
		if at >= 0 {
			styles++
		}
	}
	if styles > 1 {
		// Report the parameter that is not ?, or of $n and @name the one
		// whose style came second.
		at := max(first[1], first[2])
		_, end, _ := nextPG(sql, at)
		return scanned{sql: sql}, syntaxError(sql, at, ErrMixedParams, sql[at:end])
	}
	switch {
	case !rewrite:
		return scanned{sql: sql}, nil
	case positional > 0:
		b.WriteString(sql[done:])
		return scanned{sql: b.String(), params: positionalNames(positional)}, nil
	case names != nil:
		b.WriteString(sql[done:])
		return scanned{sql: b.String(), params: positionalNames(len(names)), named: names}, nil
	case params != nil:
		slices.SortStableFunc(params, func(a, b string) int { return CompareNumber(a, b[1:]) })
		return scanned{sql: sql, params: params, numbered: true}, nil
	}
	return scanned{sql: sql}, nil
}

// CompareNumber compares the number of the parameter pn named name (the
// digits after its first byte) with the decimal digits n, as numbers of any
// size: leading zeros do not count. It is -1, 0 or +1, and allocates
// nothing.
func CompareNumber(name, n string) int {
	a, b := strings.TrimLeft(name[1:], "0"), strings.TrimLeft(n, "0")
	if c := len(a) - len(b); c != 0 {
		return max(-1, min(1, c))
	}
	return strings.Compare(a, b)
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

// InvalidUTF8At is the offset of the first byte of s that is not part of a
// valid UTF-8 sequence (len(s) if there is none).
func InvalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(s)
}
