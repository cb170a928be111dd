package benchserver

import (
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// resultKey is the SQL text under which the result of req is stored: its
// own text when a result has that text, else the text with each @name
// parameter replaced by its value. ORMs send a query's literals as
// parameters (GORM's LIMIT ? and a Preload's IN (?, ...)), and the
// workloads store those results under the literal text, which also
// serves the arms that write the values into the text; ok is false when
// neither text has a result.
func (s *Server) resultKey(req *spannerpb.ExecuteSqlRequest) (string, bool) {
	sql := req.GetSql()
	if _, ok := s.results[sql]; ok || len(req.GetParams().GetFields()) == 0 {
		return sql, ok
	}
	bound := bindParams(sql, req.GetParams().GetFields())
	_, ok := s.results[bound]
	return bound, ok
}

// bindParams replaces each @name in sql that names a parameter by its
// value: string values (INT64, STRING and the other types Spanner encodes
// as strings) as they are, numbers in Go's shortest form, booleans as
// TRUE or FALSE. Names without a parameter stay.
func bindParams(sql string, params map[string]*structpb.Value) string {
	var b strings.Builder
	b.Grow(len(sql))
	for i := 0; i < len(sql); {
		j := i + 1
		if sql[i] == '@' {
			for j < len(sql) && isNameByte(sql[j]) {
				j++
			}
			if v, ok := params[sql[i+1:j]]; ok && j > i+1 {
				b.WriteString(literal(v))
				i = j
				continue
			}
			j = i + 1
		}
		b.WriteByte(sql[i])
		i = j
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func literal(v *structpb.Value) string {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return k.StringValue
	case *structpb.Value_NumberValue:
		return strconv.FormatFloat(k.NumberValue, 'g', -1, 64)
	case *structpb.Value_BoolValue:
		if k.BoolValue {
			return "TRUE"
		}
		return "FALSE"
	case *structpb.Value_NullValue:
		return "NULL"
	}
	return v.String()
}
