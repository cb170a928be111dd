package spannerfasttest

import (
	"strconv"
	"strings"
	"unicode"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/protobuf/types/known/structpb"
)

// isPrefix marks a table name as an INFORMATION_SCHEMA table after
// rewriting: no user table can have a dot in its name.
const isPrefix = "INFORMATION_SCHEMA."

// rewriteInfoSchema prepares a query that names INFORMATION_SCHEMA.X for
// spansql, which knows neither dotted table names, nor table aliases without
// AS, nor a trailing comma in the select list. Each INFORMATION_SCHEMA.X
// outside string literals becomes the quoted identifier
// `INFORMATION_SCHEMA.X`. ok is false when the query names none.
func rewriteInfoSchema(sql string) (out string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := skipQuoted(sql, i)
			b.WriteString(sql[i:j])
			i = j
		case isIdentByte(c) && isWordStart(sql, i) && boolKeywords[strings.ToUpper(nextWord(sql, i))]:
			w := nextWord(sql, i)
			b.WriteString(w)
			i += len(w)
			if path, end := barePath(sql, i); path != "" {
				b.WriteString(" (" + path + " = TRUE)")
				i = end
			}
		case c == ',' && strings.EqualFold(nextWord(sql, i+1), "FROM"):
			b.WriteByte(' ')
			i++
		case isWordStart(sql, i) && hasFoldPrefix(sql[i:], "INFORMATION_SCHEMA"):
			j := skipSpace(sql, i+len("INFORMATION_SCHEMA"))
			if j >= len(sql) || sql[j] != '.' {
				b.WriteByte(c)
				i++
				continue
			}
			name := nextWord(sql, j+1)
			j = skipSpace(sql, j+1) + len(name)
			b.WriteString("`" + isPrefix + strings.ToUpper(name) + "`")
			if alias := nextWord(sql, j); alias != "" && !aliasStop[strings.ToUpper(alias)] {
				b.WriteString(" AS")
			}
			i, ok = j, true
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), ok
}

// boolKeywords precede a boolean operand. spansql wants a boolean
// expression there and refuses a bare column such as "AND I.IS_UNIQUE".
var boolKeywords = map[string]bool{"AND": true, "OR": true, "NOT": true, "WHERE": true, "ON": true}

// barePath finds a lone column reference (a or a.b) used as a boolean
// operand from i: one followed by the end of the query, ")" or a word
// that ends the operand. It returns "" otherwise.
func barePath(s string, i int) (path string, end int) {
	j := skipSpace(s, i)
	start := j
	for {
		w := nextWord(s, j)
		if w == "" || j != skipSpace(s, j) && j != start {
			return "", 0
		}
		if operandStop[strings.ToUpper(w)] || w[0] >= '0' && w[0] <= '9' {
			return "", 0
		}
		j += len(w)
		if j < len(s) && s[j] == '.' {
			j++
			continue
		}
		break
	}
	k := skipSpace(s, j)
	if k == len(s) || s[k] == ')' || operandStop[strings.ToUpper(nextWord(s, k))] && nextWord(s, k) != "" {
		return s[start:j], j
	}
	return "", 0
}

// operandStop holds the words that end a boolean operand, or that cannot
// be one.
var operandStop = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "ORDER": true, "GROUP": true, "LIMIT": true, "HAVING": true,
	"TRUE": true, "FALSE": true, "NULL": true, "EXISTS": true, "UNION": true, "LEFT": true, "INNER": true,
	"JOIN": true, "CROSS": true, "WHERE": true, "OFFSET": true,
}

// aliasStop holds the words that may follow a table name without being
// its alias.
var aliasStop = map[string]bool{
	"AS": true, "WHERE": true, "LEFT": true, "RIGHT": true, "INNER": true, "FULL": true, "CROSS": true,
	"JOIN": true, "ON": true, "USING": true, "ORDER": true, "GROUP": true, "LIMIT": true, "OFFSET": true,
	"HAVING": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "WINDOW": true, "TABLESAMPLE": true,
	"HASH": true, "LOOKUP": true,
}

func skipQuoted(s string, i int) int {
	q := s[i]
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

func skipSpace(s string, i int) int {
	for i < len(s) && unicode.IsSpace(rune(s[i])) {
		i++
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// nextWord returns the identifier starting at the first non-space byte
// from i, or "".
func nextWord(s string, i int) string {
	i = skipSpace(s, i)
	j := i
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	return s[i:j]
}

func isWordStart(s string, i int) bool {
	return i == 0 || !isIdentByte(s[i-1]) && s[i-1] != '.' && s[i-1] != '@'
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) &&
		(len(s) == len(prefix) || !isIdentByte(s[len(prefix)]))
}

// infoSchemaTable returns X for a FROM item naming INFORMATION_SCHEMA.X.
func infoSchemaTable(id spansql.ID) (string, bool) {
	return strings.CutPrefix(string(id), isPrefix)
}

// infoSchemaQuery answers a query that names INFORMATION_SCHEMA tables
// from the catalog; handled is false for every other query. Like Spanner,
// it refuses read-write transactions.
func (s *service) infoSchemaQuery(req *spannerpb.ExecuteSqlRequest, sel selected) (p *spannerpb.PartialResultSet, handled bool, err error) {
	sql, ok := rewriteInfoSchema(req.GetSql())
	if !ok {
		return nil, false, nil
	}
	if sel.tx != nil && sel.tx.kind != readOnly {
		return nil, true, invalid("INFORMATION_SCHEMA queries are not allowed in a %s transaction; use a single-use or read-only transaction", sel.tx.kind)
	}
	q, perr := spansql.ParseQuery(sql)
	if perr != nil {
		return nil, true, unimplemented("INFORMATION_SCHEMA query not supported here (%v): %s", perr, req.GetSql())
	}
	e := &isEval{cat: s.catalog, params: map[string]any{}, ptypes: map[string]spannerpb.TypeCode{}}
	for name, v := range req.GetParams().GetFields() {
		if e.params[name], e.ptypes[name], err = isParam(name, v, req.GetParamTypes()[name]); err != nil {
			return nil, true, err
		}
	}
	res, err := e.query(q, nil)
	if err != nil {
		return nil, true, err
	}
	return res.partial(), true, nil
}

// isParam converts a query parameter; untyped ones take the type of
// their JSON value.
func isParam(name string, v *structpb.Value, t *spannerpb.Type) (any, spannerpb.TypeCode, error) {
	code := t.GetCode()
	if _, null := v.GetKind().(*structpb.Value_NullValue); null {
		return nil, code, nil
	}
	switch {
	case code == tBool || code == 0 && v.GetKind() != nil && isBoolValue(v):
		return v.GetBoolValue(), tBool, nil
	case code == tInt64:
		n, ok := toInt64(v.GetStringValue())
		if !ok {
			return nil, 0, invalid("query parameter @%s: bad INT64 value %q", name, v.GetStringValue())
		}
		return n, tInt64, nil
	case code == tString || code == 0:
		if _, ok := v.GetKind().(*structpb.Value_StringValue); ok {
			return v.GetStringValue(), tString, nil
		}
	}
	return nil, 0, unimplemented("query parameter @%s of type %s is not supported with INFORMATION_SCHEMA", name, code)
}

func isBoolValue(v *structpb.Value) bool {
	_, ok := v.GetKind().(*structpb.Value_BoolValue)
	return ok
}

// partial encodes the result as one PartialResultSet.
func (r *isResult) partial() *spannerpb.PartialResultSet {
	rt := &spannerpb.StructType{}
	for i, n := range r.names {
		t := r.types[i]
		if t == 0 {
			t = tInt64 // an untyped NULL column; Spanner types it INT64
		}
		rt.Fields = append(rt.Fields, &spannerpb.StructType_Field{Name: n, Type: &spannerpb.Type{Code: t}})
	}
	p := &spannerpb.PartialResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: rt}}
	for _, row := range r.rows {
		for _, v := range row {
			p.Values = append(p.Values, encodeValue(v))
		}
	}
	return p
}

func encodeValue(v any) *structpb.Value {
	switch x := v.(type) {
	case nil:
		return structpb.NewNullValue()
	case bool:
		return structpb.NewBoolValue(x)
	}
	return structpb.NewStringValue(valueText(v))
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}
