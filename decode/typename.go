package decode

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// TypeName returns the GoogleSQL name of t: "INT64", "ARRAY<STRING>",
// "STRUCT<id INT64, name STRING>", "PROTO<pkg.Msg>", "ENUM<pkg.E>".
func TypeName(t *spannerpb.Type) string {
	var b strings.Builder
	writeTypeName(&b, t)
	return b.String()
}

func writeTypeName(b *strings.Builder, t *spannerpb.Type) {
	switch t.GetCode() {
	case spannerpb.TypeCode_ARRAY:
		b.WriteString("ARRAY<")
		writeTypeName(b, t.GetArrayElementType())
		b.WriteByte('>')
	case spannerpb.TypeCode_STRUCT:
		b.WriteString("STRUCT<")
		for i, f := range t.GetStructType().GetFields() {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.GetName() != "" {
				writeIdent(b, f.GetName())
				b.WriteByte(' ')
			}
			writeTypeName(b, f.GetType())
		}
		b.WriteByte('>')
	case spannerpb.TypeCode_PROTO, spannerpb.TypeCode_ENUM:
		b.WriteString(t.GetCode().String())
		if fqn := t.GetProtoTypeFqn(); fqn != "" {
			b.WriteByte('<')
			b.WriteString(fqn)
			b.WriteByte('>')
		}
	case spannerpb.TypeCode_NUMERIC:
		if t.GetTypeAnnotation() == spannerpb.TypeAnnotationCode_PG_NUMERIC {
			b.WriteString("PG_NUMERIC")
			return
		}
		b.WriteString("NUMERIC")
	case spannerpb.TypeCode_JSON:
		if t.GetTypeAnnotation() == spannerpb.TypeAnnotationCode_PG_JSONB {
			b.WriteString("PG_JSONB")
			return
		}
		b.WriteString("JSON")
	default:
		b.WriteString(t.GetCode().String())
	}
}

// writeIdent writes a field name, quoted with backticks unless it is a
// plain identifier.
func writeIdent(b *strings.Builder, s string) {
	plain := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || (i > 0 && c >= '0' && c <= '9')) {
			plain = false
			break
		}
	}
	if plain {
		b.WriteString(s)
		return
	}
	b.WriteByte('`')
	for i := 0; i < len(s); i++ {
		if s[i] == '`' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('`')
}
