package workload

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
)

// WireKind is the google.protobuf.Value kind a cell travels as.
type WireKind int

// The Value kinds the workloads use.
const (
	WireString WireKind = iota // string_value
	WireNumber                 // number_value
	WireBool                   // bool_value
	WireList                   // list_value of string_values
)

// Cell is one value in its wire form.
type Cell struct {
	Wire WireKind
	S    string   // WireString
	F    float64  // WireNumber
	B    bool     // WireBool
	List []string // WireList: the string_value elements
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// mix is the splitmix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (w *Workload) hash(row, col int) uint64 {
	return mix(w.seed*0x9e3779b97f4a7c15 ^ uint64(row)*0xd6e8feb86659fd93 ^ uint64(col+1)*0xa0761d6478bd642f)
}

func randString(h uint64, n int) string {
	var b strings.Builder
	b.Grow(n)
	x := h | 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		b.WriteByte(letters[(x>>58)%uint64(len(letters))])
	}
	return b.String()
}

var tsBase = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// Cell returns the wire form of the value in row, col. Rows of a cyclic
// workload repeat after CyclePeriod rows.
func (w *Workload) Cell(row, col int) Cell {
	c, _ := w.value(w.reduce(row), col, false)
	return c
}

// GoValue returns the value in row, col as the Go value an application
// scans it into: int64, string, float64, bool, time.Time (UTC), civil.Date,
// []byte, big.Rat, spanner.NullJSON or []spanner.NullInt64.
func (w *Workload) GoValue(row, col int) any {
	_, v := w.value(w.reduce(row), col, true)
	return v
}

// reduce maps a row of a cyclic workload to the row it repeats.
func (w *Workload) reduce(row int) int {
	if w.Cycle {
		return row % w.CyclePeriod()
	}
	return row
}

func (w *Workload) value(row, col int, goValue bool) (Cell, any) {
	h := w.hash(row, col)
	c := w.Columns[col]
	switch c.Kind {
	case Int64:
		v := int64(h) >> (h >> 58)
		if c.Sequence > 0 {
			v = int64(row/c.Sequence) + 1
		}
		return Cell{Wire: WireString, S: strconv.FormatInt(v, 10)}, v
	case String:
		n := c.Len
		if c.VarLen {
			n = c.Len/4 + int(h%uint64(c.Len-c.Len/4+1))
		}
		s := randString(h, n)
		return Cell{Wire: WireString, S: s}, s
	case Float64:
		f := float64(h>>11)/(1<<53)*2e6 - 1e6
		return Cell{Wire: WireNumber, F: f}, f
	case Bool:
		b := h&1 == 1
		return Cell{Wire: WireBool, B: b}, b
	case Timestamp:
		secs := int64(h % (6 * 365 * 86400))
		nanos := int64((h >> 32) % 1e9)
		switch (h >> 20) % 4 { // 0, 3, 6 or 9 fraction digits
		case 0:
			nanos = 0
		case 1:
			nanos -= nanos % 1e6
		case 2:
			nanos -= nanos % 1e3
		}
		t := tsBase.Add(time.Duration(secs)*time.Second + time.Duration(nanos))
		return Cell{Wire: WireString, S: t.Format("2006-01-02T15:04:05.999999999Z07:00")}, t
	case Date:
		d := civil.Date{Year: 1950, Month: time.January, Day: 1}.AddDays(int(h % (75 * 365)))
		return Cell{Wire: WireString, S: d.String()}, d
	case Bytes:
		b := make([]byte, c.Len)
		x := h | 1
		for i := range b {
			x = x*6364136223846793005 + 1442695040888963407
			b[i] = byte(x >> 56)
		}
		return Cell{Wire: WireString, S: base64.StdEncoding.EncodeToString(b)}, b
	case Numeric:
		// Money-like: up to 9 integer digits, 0 to 6 fraction digits.
		ip := h % 1_000_000_000
		fp := (h >> 30) % 1_000_000
		s := strconv.FormatUint(ip, 10)
		if fp != 0 && (h>>50)%4 != 0 {
			f := strconv.FormatUint(fp+1_000_000, 10)[1:]
			s += "." + strings.TrimRight(f, "0")
		}
		if h>>63 == 1 && s != "0" {
			s = "-" + s
		}
		if !goValue {
			return Cell{Wire: WireString, S: s}, nil
		}
		var r big.Rat
		r.SetString(s)
		return Cell{Wire: WireString, S: s}, r
	case JSON:
		// A small normalized object (Spanner sorts the keys).
		s := `{"active":` + strconv.FormatBool(h&2 == 2) + `,"id":` + strconv.FormatUint(h%100000, 10) +
			`,"name":"` + randString(h, 8) + `"}`
		if !goValue {
			return Cell{Wire: WireString, S: s}, nil
		}
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			panic("workload: generated invalid JSON: " + err.Error()) // generator bug
		}
		return Cell{Wire: WireString, S: s}, spanner.NullJSON{Value: v, Valid: true}
	case ArrayInt64:
		list := make([]string, c.Len)
		vals := make([]spanner.NullInt64, c.Len)
		for i := range list {
			v := int64(mix(h+uint64(i))) >> 20
			list[i] = strconv.FormatInt(v, 10)
			vals[i] = spanner.NullInt64{Int64: v, Valid: true}
		}
		return Cell{Wire: WireList, List: list}, vals
	}
	panic("workload: unknown kind " + c.Kind.String()) // catalog bug
}
