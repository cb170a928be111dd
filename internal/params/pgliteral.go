package params

import (
	"database/sql/driver"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// On a PostgreSQL-dialect database go-sql-spanner reads one more form of
// argument: a spanner.GenericColumnValue typed BOOL or ARRAY whose value is
// a string holds PostgreSQL's text form of it ('t', 'yes', 'off'...;
// '{1,2,NULL}'), which it sends as the bool or the list that text means.
// Text that is not such a literal is sent as it is, for Spanner to judge.
// GoogleSQL databases get every GenericColumnValue as it is.

// ConvertPostgreSQL is Convert for a connection to a PostgreSQL-dialect
// database: a GenericColumnValue holding a PostgreSQL BOOL or ARRAY literal
// becomes the value it means first. The connection chooses it once, when it
// learns its database's dialect.
func ConvertPostgreSQL(nv *driver.NamedValue) error {
	switch v := nv.Value.(type) {
	case spanner.GenericColumnValue:
		nv.Value = pgLiteralValue(v)
	case SpannerNamedArg:
		if g, ok := v.Value.(spanner.GenericColumnValue); ok {
			v.Value = pgLiteralValue(g)
			nv.Value = v
		}
	}
	return Convert(nv)
}

// pgLiteralValue returns g with a PostgreSQL BOOL or ARRAY literal in its
// string value replaced by the value it means; g as it is otherwise.
func pgLiteralValue(g spanner.GenericColumnValue) spanner.GenericColumnValue {
	s, ok := g.Value.GetKind().(*structpb.Value_StringValue)
	if !ok || g.Type == nil {
		return g
	}
	switch g.Type.GetCode() {
	case spannerpb.TypeCode_BOOL:
		if b, ok := pgBool(s.StringValue); ok {
			g.Value = structpb.NewBoolValue(b)
		}
	case spannerpb.TypeCode_ARRAY:
		if l, ok := pgArray(s.StringValue, g.Type.GetArrayElementType().GetCode()); ok {
			g.Value = structpb.NewListValue(l)
		}
	}
	return g
}

// pgBool reads PostgreSQL's text forms of a boolean: any prefix of true,
// false, yes or no, on, off, 1 and 0, in any case, around white space.
func pgBool(s string) (value, ok bool) {
	w := strings.ToLower(strings.TrimSpace(s))
	switch {
	case w == "":
		return false, false
	case strings.HasPrefix("true", w), strings.HasPrefix("yes", w), w == "on", w == "1":
		return true, true
	case strings.HasPrefix("false", w), strings.HasPrefix("no", w), w == "of", w == "off", w == "0":
		return false, true
	}
	return false, false
}

// pgSpace is white space in an array literal.
func pgSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// pgArray reads a one-dimensional PostgreSQL array literal, {a, "b c",
// NULL}, into a list of elements of type elem (see pgElement). Elements are
// separated by commas; double quotes keep commas, braces, white space and
// the word NULL as text; a backslash takes the next character literally;
// white space around an unquoted element is dropped. Nested arrays, empty
// or misplaced elements, unclosed quotes and a trailing backslash are not
// a literal (false).
func pgArray(text string, elem spannerpb.TypeCode) (*structpb.ListValue, bool) {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, false
	}
	body := strings.TrimSpace(t[1 : len(t)-1])
	list := &structpb.ListValue{Values: []*structpb.Value{}}
	if body == "" {
		return list, true
	}
	var (
		tok      strings.Builder
		quoted   bool // inside double quotes
		wasQuote bool // the element had a quoted part
		escaped  bool // the previous character was a backslash
	)
	flush := func() bool {
		v, ok := pgElement(tok.String(), wasQuote, elem)
		list.Values = append(list.Values, v)
		tok.Reset()
		wasQuote = false
		return ok
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case escaped:
			tok.WriteByte(c)
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			quoted, wasQuote = !quoted, true
		case quoted:
			tok.WriteByte(c)
		case c == '{' || c == '}':
			return nil, false
		case c == ',':
			if tok.Len() == 0 && !wasQuote {
				return nil, false // an empty element
			}
			if !flush() {
				return nil, false
			}
		case pgSpace(c):
			if tok.Len() > 0 && !wasQuote {
				tok.WriteByte(c) // inside an unquoted element; trimmed at its end
			}
		case wasQuote:
			return nil, false // text after the closing quote
		default:
			tok.WriteByte(c)
		}
	}
	if quoted || escaped || (tok.Len() == 0 && !wasQuote) {
		return nil, false
	}
	if !flush() {
		return nil, false
	}
	return list, true
}

// pgElement is the wire value of one element of an array literal: NULL
// (unquoted, any case) is a null; BOOL elements are booleans, FLOAT32 and
// FLOAT64 numbers (Infinity, -Infinity and NaN as Spanner spells them);
// anything else is sent as its text.
func pgElement(tok string, quoted bool, elem spannerpb.TypeCode) (*structpb.Value, bool) {
	if !quoted {
		tok = strings.TrimSpace(tok)
		if strings.EqualFold(tok, "NULL") {
			return structpb.NewNullValue(), true
		}
	}
	switch elem {
	case spannerpb.TypeCode_BOOL:
		b, ok := pgBool(tok)
		return structpb.NewBoolValue(b), ok
	case spannerpb.TypeCode_FLOAT32, spannerpb.TypeCode_FLOAT64:
		f := strings.TrimSpace(tok)
		switch strings.ToLower(f) {
		case "inf", "infinity", "+inf", "+infinity":
			return structpb.NewStringValue("Infinity"), true
		case "-inf", "-infinity":
			return structpb.NewStringValue("-Infinity"), true
		case "nan":
			return structpb.NewStringValue("NaN"), true
		}
		x, err := strconv.ParseFloat(f, 64)
		return structpb.NewNumberValue(x), err == nil
	}
	return structpb.NewStringValue(tok), true
}
