// Package valuetext renders decoded Spanner values as text for tests: equal
// values give equal text, and the text shows dynamic types, -0, NaN and the
// insides of big.Rat, spanner.Interval and spanner.Row. The decode and rows
// tests compare values through it.
package valuetext

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

// Canon renders a decoded value (or a scanned destination) as text that is
// equal for equal values: it shows dynamic types, tells -0 from 0, renders
// NaN, and looks inside big.Rat, spanner.Interval and spanner.Row.
func Canon(v any) string {
	var b strings.Builder
	Write(&b, reflect.ValueOf(v))
	return b.String()
}

var (
	ratType      = reflect.TypeFor[big.Rat]()
	timeType     = reflect.TypeFor[time.Time]()
	intervalType = reflect.TypeFor[spanner.Interval]()
	rowTypeT     = reflect.TypeFor[spanner.Row]()
)

// Write renders v into b as Canon does.
func Write(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	t := v.Type()
	switch t {
	case ratType:
		r := v.Interface().(big.Rat)
		fmt.Fprintf(b, "big.Rat(%s)", r.RatString())
		return
	case timeType:
		tm := v.Interface().(time.Time)
		fmt.Fprintf(b, "time(%s %s)", tm.Format(time.RFC3339Nano), tm.Location())
		return
	case intervalType:
		iv := v.Interface().(spanner.Interval)
		fmt.Fprintf(b, "interval(%s)", iv.String())
		return
	case rowTypeT:
		r := v.Interface().(spanner.Row)
		b.WriteString("row{")
		for i, name := range r.ColumnNames() {
			if i > 0 {
				b.WriteString(", ")
			}
			var g spanner.GenericColumnValue
			if err := r.Column(i, &g); err != nil {
				fmt.Fprintf(b, "%s: error %v", name, err)
				continue
			}
			fmt.Fprintf(b, "%s %s: %s", name, decode.TypeName(g.Type), Proto(g.Value))
		}
		b.WriteString("}")
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		Write(b, v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			fmt.Fprintf(b, "(%s)(nil)", t)
			return
		}
		b.WriteString("&")
		Write(b, v.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				fmt.Fprintf(b, "%s(nil)", t)
			} else {
				fmt.Fprintf(b, "%s(%q)", t, v.Bytes())
			}
			return
		}
		if v.IsNil() {
			fmt.Fprintf(b, "%s(nil)", t)
			return
		}
		fmt.Fprintf(b, "%s{", t)
		for i := range v.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			Write(b, v.Index(i))
		}
		b.WriteString("}")
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		s := strconv.FormatFloat(f, 'g', -1, t.Bits())
		if f == 0 && math.Signbit(f) {
			s = "-0"
		}
		fmt.Fprintf(b, "%s(%s)", t, s)
	case reflect.String:
		fmt.Fprintf(b, "%s(%q)", t, v.String())
	case reflect.Struct:
		if !exportedFields(t) {
			fmt.Fprintf(b, "%#v", v.Interface())
			return
		}
		fmt.Fprintf(b, "%s{", t)
		for i := range t.NumField() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.Field(i).Name)
			b.WriteString(": ")
			Write(b, v.Field(i))
		}
		b.WriteString("}")
	case reflect.Map:
		fmt.Fprintf(b, "%#v", v.Interface())
	default:
		fmt.Fprintf(b, "%s(%v)", t, v.Interface())
	}
}

// exportedFields reports whether t's fields are all exported, so they can
// be rendered one by one (NullNumeric, NullRow, ...).
func exportedFields(t reflect.Type) bool {
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			return false
		}
	}
	return true
}

// Proto renders a google.protobuf.Value deterministically.
func Proto(v *structpb.Value) string {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return "null"
	case *structpb.Value_NumberValue:
		return strconv.FormatFloat(k.NumberValue, 'g', -1, 64)
	case *structpb.Value_StringValue:
		return strconv.Quote(k.StringValue)
	case *structpb.Value_BoolValue:
		return strconv.FormatBool(k.BoolValue)
	case *structpb.Value_ListValue:
		parts := make([]string, len(k.ListValue.GetValues()))
		for i, e := range k.ListValue.GetValues() {
			parts[i] = Proto(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *structpb.Value_StructValue:
		return "struct{...}"
	}
	return "unset"
}
