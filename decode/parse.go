package decode

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/big"
	"time"
	"unsafe"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"github.com/google/uuid"
)

// This file turns one non-NULL wire value into a typed Go value. The column
// decoders (scalar.go) and the array element decoders (array.go) share it.

// view returns b as a string without copying; the result must not outlive b.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func parseBool(v Value) (bool, error) {
	if v.Kind != KindBool {
		return false, badValue("a bool", v)
	}
	return v.Bool, nil
}

func parseInt64(v Value) (int64, error) {
	if v.Kind != KindString {
		return 0, badValue("a decimal INT64 string", v)
	}
	if n, ok := parseDecimalInt64(v.Bytes); ok {
		return n, nil
	}
	return 0, badValue("a decimal INT64 string", v)
}

// parseDecimalInt64 is strconv.ParseInt(s, 10, 64) without the string
// conversion and the error allocation on the hot path. Up to 19 digits
// (every int64) are read eight at a time: they cannot overflow a uint64,
// so the range is checked once at the end.
func parseDecimalInt64(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		s = s[1:]
		if len(s) == 0 {
			return 0, false
		}
	}
	if len(s) > 19 {
		return parseLongDecimal(s, neg)
	}
	var u uint64
	for len(s) >= 8 {
		chunk := binary.LittleEndian.Uint64(s)
		if !eightDigits(chunk) {
			return 0, false
		}
		u = u*100_000_000 + eightDigitsValue(chunk)
		s = s[8:]
	}
	for _, c := range s {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	return signedInt64(u, neg)
}

// parseLongDecimal reads more than 19 digits (leading zeros), one at a time
// with an overflow check.
func parseLongDecimal(s []byte, neg bool) (int64, bool) {
	var u uint64
	for _, c := range s {
		d := c - '0'
		if d > 9 || u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	return signedInt64(u, neg)
}

func signedInt64(u uint64, neg bool) (int64, bool) {
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// eightDigits reports whether the eight bytes of chunk (little-endian) are
// all ASCII digits: each byte is 0x3? and stays 0x3? when 6 is added.
func eightDigits(chunk uint64) bool {
	const hi, threes, sixes = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030, 0x0606060606060606
	return chunk&hi == threes && (chunk+sixes)&hi == threes
}

// eightDigitsValue is the number written by eight ASCII digits, the first
// in the lowest byte: adjacent digits are combined pairwise, then the
// pairs, then the quadruples, each step one multiply.
func eightDigitsValue(chunk uint64) uint64 {
	v := chunk & 0x0F0F0F0F0F0F0F0F
	v = (v * (10<<8 + 1)) >> 8
	v = ((v & 0x00FF00FF00FF00FF) * (100<<16 + 1)) >> 16
	return ((v & 0x0000FFFF0000FFFF) * (10000<<32 + 1)) >> 32
}

func parseFloat64(v Value) (float64, error) {
	switch v.Kind {
	case KindNumber:
		return v.Num, nil
	case KindString:
		switch view(v.Bytes) {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	}
	return 0, badValue(`a number or "NaN", "Infinity", "-Infinity"`, v)
}

func parseFloat32(v Value) (float32, error) {
	f, err := parseFloat64(v)
	return float32(f), err
}

func parseString(v Value) (string, error) {
	if v.Kind != KindString {
		return "", badValue("a string", v)
	}
	return string(v.Bytes), nil
}

// parseBytes decodes standard padded base64 into a new slice.
func parseBytes(v Value) ([]byte, error) {
	if v.Kind != KindString {
		return nil, badValue("a base64 string", v)
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(v.Bytes)))
	n, err := base64.StdEncoding.Decode(out, v.Bytes)
	if err != nil {
		return nil, badValue("standard base64", v)
	}
	return out[:n], nil
}

// parseTimestamp reads Spanner's RFC 3339 form: "YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z".
// It is written out by hand because time.Parse costs several times more and
// Spanner only ever sends this one layout.
func parseTimestamp(v Value) (time.Time, error) {
	if v.Kind != KindString {
		return time.Time{}, badValue("an RFC 3339 timestamp", v)
	}
	t, ok := timestampOf(v.Bytes)
	if !ok {
		return time.Time{}, badValue("an RFC 3339 UTC timestamp", v)
	}
	return t, nil
}

func timestampOf(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
		s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || !validDate(year, month, day) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	rest := s[19:]
	nsec := 0
	if rest[0] == '.' {
		i := 1
		scale := 100_000_000
		for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
			if i > 9 {
				return time.Time{}, false
			}
			nsec += int(rest[i]-'0') * scale
			scale /= 10
		}
		if i == 1 {
			return time.Time{}, false
		}
		rest = rest[i:]
	}
	if len(rest) != 1 || (rest[0] != 'Z' && rest[0] != 'z') {
		return time.Time{}, false
	}
	secs := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	return time.Unix(secs, int64(nsec)).UTC(), true
}

// parseDateBytes checks "YYYY-MM-DD" (years 0001-9999).
func parseDateBytes(s []byte) (civil.Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return civil.Date{}, false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !(ok1 && ok2 && ok3) || !validDate(y, m, d) {
		return civil.Date{}, false
	}
	return civil.Date{Year: y, Month: time.Month(m), Day: d}, true
}

func parseDate(v Value) (civil.Date, error) {
	if v.Kind == KindString {
		if d, ok := parseDateBytes(v.Bytes); ok {
			return d, nil
		}
	}
	return civil.Date{}, badValue(`a "YYYY-MM-DD" date`, v)
}

func digits(s []byte) (int, bool) {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func validDate(y, m, d int) bool {
	if y < 1 || m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= daysIn(y, m)
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch converts a proleptic Gregorian date to days since 1970-01-01
// (Howard Hinnant's days_from_civil).
func daysSinceEpoch(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// parseNumeric reads a NUMERIC decimal string exactly.
func parseNumeric(v Value) (*big.Rat, error) {
	if v.Kind != KindString || !isDecimal(v.Bytes) {
		return nil, badValue("a NUMERIC decimal string", v)
	}
	if r, ok := smallRat(v.Bytes); ok {
		return r, nil
	}
	r, ok := new(big.Rat).SetString(string(v.Bytes))
	if !ok {
		return nil, badValue("a NUMERIC decimal string", v)
	}
	return r, nil
}

// smallRat converts a decimal of at most 18 digits exactly, several times
// faster than big.Rat.SetString: the fraction num/10^k is reduced by the
// only primes 10^k has, 2 and 5, with machine integers, so the result is
// already in lowest terms and big.Rat's normalisation (a GCD and several
// allocations) is skipped. s has passed isDecimal.
func smallRat(s []byte) (*big.Rat, bool) {
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	var num uint64
	digits, scale, dot := 0, 0, false
	for _, c := range s {
		if c == '.' {
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			return nil, false // PG_NUMERIC's NaN
		}
		if digits++; digits > 18 {
			return nil, false
		}
		num = num*10 + uint64(c-'0')
		if dot {
			scale++
		}
	}
	den := uint64(1)
	for range scale {
		den *= 10
	}
	for den%2 == 0 && num%2 == 0 && num != 0 {
		num, den = num/2, den/2
	}
	for den%5 == 0 && num%5 == 0 && num != 0 {
		num, den = num/5, den/5
	}
	return wordRat(num, den, neg)
}

// ratWords is a big.Rat together with the words of its numerator and
// denominator: one allocation instead of three.
type ratWords struct {
	r big.Rat
	w [2]big.Word
}

// ratOne is copied into a new ratWords only so that its denominator is
// non-empty, which makes Denom return a reference to it; both slices are
// replaced at once and ratOne's words are never written.
var ratOne = new(big.Rat).SetInt64(1)

// wordRat builds the big.Rat num/den (in lowest terms, den > 0) exactly as
// big.Rat.SetString leaves it: zero has a nil numerator and denominator 1.
// It fails on platforms whose big.Word cannot hold num or den.
func wordRat(num, den uint64, neg bool) (*big.Rat, bool) {
	if uint64(big.Word(num)) != num || uint64(big.Word(den)) != den {
		return nil, false
	}
	x := new(ratWords)
	x.r = *ratOne
	x.w = [2]big.Word{big.Word(num), big.Word(den)}
	var abs []big.Word // zero
	if num == 0 {
		x.w[1] = 1
	} else {
		abs = x.w[0:1:1]
	}
	x.r.Denom().SetBits(x.w[1:2:2])
	n := x.r.Num().SetBits(abs)
	if neg {
		n.Neg(n)
	}
	return &x.r, true
}

// isDecimal accepts [-+]digits[.digits] (and PostgreSQL's "NaN"), rejecting the
// fractions and exponents that big.Rat.SetString would also take.
func isDecimal(s []byte) bool {
	if view(s) == "NaN" {
		return true // big.Rat rejects it; NumericAsString keeps it
	}
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	seenDigit, seenDot := false, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
		case c == '.' && !seenDot:
			seenDot = true
		default:
			return false
		}
	}
	return seenDigit
}

func parseNumericString(v Value) (string, error) {
	if err := checkNumericText(v); err != nil {
		return "", err
	}
	return string(v.Bytes), nil
}

// checkNumericText accepts a NUMERIC's decimal text (PG_NUMERIC's NaN
// included) without copying it.
func checkNumericText(v Value) error {
	if v.Kind != KindString || !isDecimal(v.Bytes) {
		return badValue("a NUMERIC decimal string", v)
	}
	return nil
}

func parseJSON(v Value) (spanner.NullJSON, error) { return parseJSONIn(v, nil) }

// parseJSONIn is parseJSON with blk as the first block of the document's
// memory (see jsonParser).
func parseJSONIn(v Value, blk []byte) (spanner.NullJSON, error) {
	if v.Kind != KindString {
		return spanner.NullJSON{}, badValue("JSON text", v)
	}
	x, err := unmarshalJSONIn(v.Bytes, blk)
	if err != nil {
		return spanner.NullJSON{}, badValue("valid JSON text", v)
	}
	return spanner.NullJSON{Value: x, Valid: true}, nil
}

func parseUUID(v Value) (uuid.UUID, error) {
	if v.Kind == KindString && len(v.Bytes) == 36 {
		if u, err := uuid.ParseBytes(v.Bytes); err == nil {
			return u, nil
		}
	}
	return uuid.UUID{}, badValue("a canonical UUID", v)
}

func parseInterval(v Value) (spanner.Interval, error) {
	if v.Kind != KindString {
		return spanner.Interval{}, badValue("an ISO 8601 interval", v)
	}
	iv, err := spanner.ParseInterval(string(v.Bytes))
	if err != nil {
		return spanner.Interval{}, badValue("an ISO 8601 interval", v)
	}
	return iv, nil
}

// parseEnum reads an ENUM value, which travels like INT64.
func parseEnum(v Value) (int64, error) { return parseInt64(v) }
