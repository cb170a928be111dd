package randrs

// Random values of each type, in Spanner's wire form: the text forms and
// ranges the server sends (timestamps, dates, NUMERIC, JSON, INTERVAL).

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

func null() *structpb.Value { return structpb.NewNullValue() }

func str(s string) *structpb.Value {
	return &structpb.Value{Kind: &structpb.Value_StringValue{StringValue: s}}
}

func num(f float64) *structpb.Value {
	return &structpb.Value{Kind: &structpb.Value_NumberValue{NumberValue: f}}
}

func list(vs []*structpb.Value) *structpb.Value {
	return &structpb.Value{Kind: &structpb.Value_ListValue{ListValue: &structpb.ListValue{Values: vs}}}
}

func value(r *rand.Rand, t *spannerpb.Type, o Options) *structpb.Value {
	if o.NullRate > 0 && r.Float64() < o.NullRate {
		return null()
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_ARRAY:
		n := r.IntN(o.MaxArrayLen + 1)
		if r.IntN(6) == 0 {
			n = 0
		}
		vs := make([]*structpb.Value, n)
		for i := range vs {
			vs[i] = value(r, t.GetArrayElementType(), o)
		}
		return list(vs)
	case spannerpb.TypeCode_STRUCT:
		fs := t.GetStructType().GetFields()
		vs := make([]*structpb.Value, len(fs))
		for i, f := range fs {
			vs[i] = value(r, f.GetType(), o)
		}
		return list(vs)
	case spannerpb.TypeCode_BOOL:
		return &structpb.Value{Kind: &structpb.Value_BoolValue{BoolValue: r.IntN(2) == 1}}
	case spannerpb.TypeCode_INT64:
		return str(strconv.FormatInt(randInt64(r), 10))
	case spannerpb.TypeCode_ENUM:
		return str(strconv.FormatInt(int64(randInt32(r)), 10))
	case spannerpb.TypeCode_FLOAT64:
		return randFloat(r, false)
	case spannerpb.TypeCode_FLOAT32:
		return randFloat(r, true)
	case spannerpb.TypeCode_STRING:
		return str(randString(r, o))
	case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO:
		return str(base64.StdEncoding.EncodeToString(randBytes(r, o)))
	case spannerpb.TypeCode_TIMESTAMP:
		return str(randTimestamp(r))
	case spannerpb.TypeCode_DATE:
		return str(randDate(r))
	case spannerpb.TypeCode_NUMERIC:
		return str(randNumeric(r))
	case spannerpb.TypeCode_JSON:
		return str(randJSON(r))
	case spannerpb.TypeCode_UUID:
		return str(randUUID(r))
	case spannerpb.TypeCode_INTERVAL:
		return str(randInterval(r))
	default:
		// Unknown codes get NULL: the only value valid for any type.
		return null()
	}
}

func randInt64(r *rand.Rand) int64 {
	switch r.IntN(8) {
	case 0:
		edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 1 << 53, -(1 << 53) - 1}
		return edges[r.IntN(len(edges))]
	case 1, 2:
		return int64(r.Uint64())
	default:
		return r.Int64N(2001) - 1000
	}
}

func randInt32(r *rand.Rand) int32 {
	switch r.IntN(6) {
	case 0:
		edges := []int32{0, 1, -1, math.MaxInt32, math.MinInt32}
		return edges[r.IntN(len(edges))]
	default:
		return int32(r.IntN(20))
	}
}

func randFloat(r *rand.Rand, f32 bool) *structpb.Value {
	switch r.IntN(12) {
	case 0:
		return str([]string{"NaN", "Infinity", "-Infinity"}[r.IntN(3)])
	case 1:
		var edges []float64
		if f32 {
			edges = []float64{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32,
				float64(float32(1.17549435e-38)), 0, math.Copysign(0, -1)}
		} else {
			edges = []float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
				2.2250738585072014e-308, 0, math.Copysign(0, -1), 1 << 53, 1<<53 + 2}
		}
		return num(edges[r.IntN(len(edges))])
	case 2, 3:
		f := float64(r.IntN(2001) - 1000)
		return num(f)
	case 4:
		// Any finite bit pattern.
		for {
			var f float64
			if f32 {
				f = float64(math.Float32frombits(r.Uint32()))
			} else {
				f = math.Float64frombits(r.Uint64())
			}
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return num(f)
			}
		}
	default:
		f := (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(21)-10))
		if f32 {
			f = float64(float32(f))
		}
		return num(f)
	}
}

var runePool = []string{
	"a", "b", "z", "A", "0", "9", " ", "_", "-", "'", "\"", "\\", "/", "<", ">", "&",
	"\n", "\t", "\r", "\x00", "\x7f",
	"é", "ß", "Ω", "ж", "ע", "ع", // 2-byte
	"日", "本", "語", "€", "\u200b", "\ufeff", "\u0301", // 3-byte (incl. zero-width, BOM, combining)
	"😀", "𝄞", "🇨🇭", "\U0010FFFF", // 4-byte (the flag is two runes)
}

func randString(r *rand.Rand, o Options) string {
	var n int
	switch {
	case r.IntN(8) == 0:
		return ""
	case o.LongStringLen > 0 && r.IntN(16) == 0:
		n = o.MaxStringLen + r.IntN(o.LongStringLen+1)
	default:
		n = 1 + r.IntN(o.MaxStringLen)
	}
	var b strings.Builder
	ascii := r.IntN(2) == 0
	for b.Len() < n {
		if ascii {
			b.WriteByte(byte('a' + r.IntN(26)))
		} else {
			b.WriteString(runePool[r.IntN(len(runePool))])
		}
	}
	return b.String()
}

func randBytes(r *rand.Rand, o Options) []byte {
	var n int
	switch {
	case r.IntN(8) == 0:
		n = 0
	case o.LongStringLen > 0 && r.IntN(16) == 0:
		n = o.MaxStringLen + r.IntN(o.LongStringLen+1)
	default:
		n = 1 + r.IntN(o.MaxStringLen)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Unix seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
const (
	minUnix = -62135596800
	maxUnix = 253402300799
)

func randTimestamp(r *rand.Rand) string {
	var sec int64
	var nanos int
	switch r.IntN(10) {
	case 0:
		sec, nanos = minUnix, 0
	case 1:
		sec, nanos = maxUnix, 999999999
	case 2:
		sec, nanos = 0, 0
	default:
		sec = minUnix + r.Int64N(maxUnix-minUnix+1)
		nanos = r.IntN(1e9)
	}
	t := time.Unix(sec, 0).UTC()
	s := t.Format("2006-01-02T15:04:05")
	digits := r.IntN(10)
	if digits > 0 {
		s += "." + fmt.Sprintf("%09d", nanos)[:digits]
	}
	return s + "Z"
}

func randDate(r *rand.Rand) string {
	var sec int64
	switch r.IntN(10) {
	case 0:
		sec = minUnix
	case 1:
		sec = maxUnix
	default:
		sec = minUnix + r.Int64N(maxUnix-minUnix+1)
	}
	return time.Unix(sec, 0).UTC().Format("2006-01-02")
}

func digits(r *rand.Rand, n int, firstNonZero bool) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	if firstNonZero && n > 0 {
		b[0] = byte('1' + r.IntN(9))
	}
	return string(b)
}

func randNumeric(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return []string{
			"0", "1", "-1", "0.000000001", "-0.000000001",
			"99999999999999999999999999999.999999999",
			"-99999999999999999999999999999.999999999",
			"12345678901234567890123456789", "0.5",
		}[r.IntN(9)]
	}
	intPart := "0"
	if n := r.IntN(30); n > 0 {
		intPart = digits(r, n, true)
	}
	frac := strings.TrimRight(digits(r, r.IntN(10), false), "0")
	s := intPart
	if frac != "" {
		s += "." + frac
	}
	if s != "0" && r.IntN(2) == 0 {
		s = "-" + s
	}
	return s
}

func randUUID(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if r.IntN(2) == 0 { // version 4 variant 1 sometimes, arbitrary bits otherwise
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// randJSON returns compact JSON with sorted keys and no HTML escaping, as
// Spanner normalizes JSON values.
func randJSON(r *rand.Rand) string {
	v := jsonValue(r, 0)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null" // cannot happen: only encodable values are built
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func jsonValue(r *rand.Rand, depth int) any {
	k := r.IntN(8)
	if depth >= 3 && k >= 6 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return r.Int64N(1<<53) - 1<<52
	case 3:
		return json.Number(strconv.FormatFloat((r.Float64()-0.5)*1000, 'g', -1, 64))
	case 4, 5:
		return randString(r, Options{MaxStringLen: 10, LongStringLen: -1})
	case 6:
		n := r.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = jsonValue(r, depth+1)
		}
		return a
	default:
		n := r.IntN(4)
		m := make(map[string]any, n)
		for i := 0; i < n; i++ {
			m[randString(r, Options{MaxStringLen: 6, LongStringLen: -1})] = jsonValue(r, depth+1)
		}
		return m
	}
}

// Interval bounds accepted by Spanner: +-10000 years, +-3660000 days,
// +-87840000 hours.
const (
	maxIntervalMonths = 10000 * 12
	maxIntervalDays   = 3660000
	maxIntervalSecs   = 87840000 * 3600
)

func randInterval(r *rand.Rand) string {
	var months, days int64
	var neg bool
	var secs uint64
	var frac uint32
	switch r.IntN(8) {
	case 0:
		// zero
	case 1:
		months, days, secs, frac = maxIntervalMonths, maxIntervalDays, maxIntervalSecs, 0
		if r.IntN(2) == 0 {
			months, days, neg = -months, -days, true
		}
	default:
		if r.IntN(2) == 0 {
			months = r.Int64N(2*maxIntervalMonths+1) - maxIntervalMonths
		}
		if r.IntN(2) == 0 {
			days = r.Int64N(2*maxIntervalDays+1) - maxIntervalDays
		}
		if r.IntN(2) == 0 {
			neg = r.IntN(2) == 0
			switch r.IntN(4) {
			case 0: // whole seconds
				secs = uint64(r.IntN(86400 * 10))
			case 1: // milliseconds
				secs, frac = uint64(r.IntN(86400)), uint32(r.IntN(1000))*1e6
			case 2: // microseconds
				secs, frac = uint64(r.IntN(100)), uint32(r.IntN(1e6))*1e3
			default:
				secs, frac = uint64(r.Int64N(maxIntervalSecs)), uint32(r.IntN(1e9))
			}
		}
	}
	return formatInterval(months, days, neg, secs, frac)
}

// formatInterval renders an interval the way Spanner sends it: years and
// months from months (same sign), days, then hours, minutes and seconds of
// the time part, each carrying the time part's sign; fractions are padded
// to 3, 6 or 9 digits; the zero interval is "P0Y".
func formatInterval(months, days int64, neg bool, secs uint64, frac uint32) string {
	var b strings.Builder
	b.WriteByte('P')
	if y := months / 12; y != 0 {
		fmt.Fprintf(&b, "%dY", y)
	}
	if m := months % 12; m != 0 {
		fmt.Fprintf(&b, "%dM", m)
	}
	if days != 0 {
		fmt.Fprintf(&b, "%dD", days)
	}
	if secs != 0 || frac != 0 {
		b.WriteByte('T')
		sign := ""
		if neg {
			sign = "-"
		}
		if h := secs / 3600; h != 0 {
			fmt.Fprintf(&b, "%s%dH", sign, h)
		}
		if m := secs % 3600 / 60; m != 0 {
			fmt.Fprintf(&b, "%s%dM", sign, m)
		}
		if s := secs % 60; s != 0 || frac != 0 {
			fmt.Fprintf(&b, "%s%d", sign, s)
			if frac != 0 {
				f := strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
				switch {
				case len(f) <= 3:
					f += strings.Repeat("0", 3-len(f))
				case len(f) <= 6:
					f += strings.Repeat("0", 6-len(f))
				default:
					f += strings.Repeat("0", 9-len(f))
				}
				b.WriteString("." + f)
			}
			b.WriteByte('S')
		}
	}
	if b.Len() == 1 {
		b.WriteString("0Y")
	}
	return b.String()
}
