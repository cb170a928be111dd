package randrs

import (
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// TypeName renders t in GoogleSQL syntax: "INT64", "ARRAY<INT64>",
// "STRUCT<a INT64, b STRING>", "ARRAY<STRUCT<INT64, x ARRAY<BYTES>>>".
// Anonymous struct fields are written without a name; names that are not
// plain identifiers are quoted with backticks. PROTO and ENUM types are
// named by their proto_type_fqn when set. Type annotations (PG_NUMERIC and
// friends) are ignored. A nil type is "NULL"; an unknown code is
// "TYPE_CODE(n)".
func TypeName(t *spannerpb.Type) string {
	var b strings.Builder
	writeType(&b, t)
	return b.String()
}

func writeType(b *strings.Builder, t *spannerpb.Type) {
	if t == nil {
		b.WriteString("NULL")
		return
	}
	switch c := t.GetCode(); c {
	case spannerpb.TypeCode_ARRAY:
		b.WriteString("ARRAY<")
		writeType(b, t.GetArrayElementType())
		b.WriteByte('>')
	case spannerpb.TypeCode_STRUCT:
		b.WriteString("STRUCT<")
		for i, f := range t.GetStructType().GetFields() {
			if i > 0 {
				b.WriteString(", ")
			}
			if n := f.GetName(); n != "" {
				b.WriteString(quoteIdent(n))
				b.WriteByte(' ')
			}
			writeType(b, f.GetType())
		}
		b.WriteByte('>')
	case spannerpb.TypeCode_PROTO, spannerpb.TypeCode_ENUM:
		if fqn := t.GetProtoTypeFqn(); fqn != "" {
			b.WriteString(fqn)
		} else {
			b.WriteString(c.String())
		}
	case spannerpb.TypeCode_BOOL, spannerpb.TypeCode_INT64, spannerpb.TypeCode_FLOAT32,
		spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_STRING, spannerpb.TypeCode_BYTES,
		spannerpb.TypeCode_TIMESTAMP, spannerpb.TypeCode_DATE, spannerpb.TypeCode_NUMERIC,
		spannerpb.TypeCode_JSON, spannerpb.TypeCode_UUID, spannerpb.TypeCode_INTERVAL:
		b.WriteString(c.String())
	default:
		b.WriteString("TYPE_CODE(" + strconv.Itoa(int(c)) + ")")
	}
}

func quoteIdent(s string) string {
	plain := true
	for i, r := range s {
		isLetter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		isDigit := r >= '0' && r <= '9'
		if !isLetter && !(isDigit && i > 0) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`").Replace(s) + "`"
}
