package scan

import (
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// Dests are the typed variables one row is scanned into.
type Dests struct {
	Ptrs []any
}

// NewDests returns the scan targets of w: int64, string, float64, bool,
// time.Time, civil.Date, []byte, big.Rat, spanner.NullJSON and
// []spanner.NullInt64; with raw, STRING and BYTES go into sql.RawBytes.
func NewDests(w *workload.Workload, raw bool) *Dests {
	d := &Dests{Ptrs: make([]any, len(w.Columns))}
	for i, c := range w.Columns {
		switch c.Kind {
		case workload.Int64:
			d.Ptrs[i] = new(int64)
		case workload.String:
			if raw {
				d.Ptrs[i] = new(sql.RawBytes)
			} else {
				d.Ptrs[i] = new(string)
			}
		case workload.Float64:
			d.Ptrs[i] = new(float64)
		case workload.Bool:
			d.Ptrs[i] = new(bool)
		case workload.Timestamp:
			d.Ptrs[i] = new(time.Time)
		case workload.Date:
			d.Ptrs[i] = new(civil.Date)
		case workload.Bytes:
			if raw {
				d.Ptrs[i] = new(sql.RawBytes)
			} else {
				d.Ptrs[i] = new([]byte)
			}
		case workload.Numeric:
			d.Ptrs[i] = new(big.Rat)
		case workload.JSON:
			d.Ptrs[i] = new(spanner.NullJSON)
		case workload.ArrayInt64:
			d.Ptrs[i] = new([]spanner.NullInt64)
		default:
			panic("NewDests: unknown kind " + c.Kind.String()) // catalog bug
		}
	}
	return d
}

// SumString and the other sum functions are the checksum of one value: cheap (a few ns), identical for a string and
// the same bytes, and for a DATE string and the civil.Date it names.
func SumString(s string) uint64 {
	if len(s) == 0 {
		return 7
	}
	return uint64(len(s))<<16 | uint64(s[0])<<8 | uint64(s[len(s)-1])
}

func sumBytes(b []byte) uint64 {
	if len(b) == 0 {
		return 7
	}
	return uint64(len(b))<<16 | uint64(b[0])<<8 | uint64(b[len(b)-1])
}

func SumBool(b bool) uint64 {
	if b {
		return 2
	}
	return 1
}

func sumDate(d civil.Date) uint64 {
	return uint64(d.Year*10000 + int(d.Month)*100 + d.Day)
}

func sumRat(r *big.Rat) uint64 {
	return r.Num().Uint64()*31 + uint64(r.Sign()+1)
}

func sumJSON(j *spanner.NullJSON) uint64 {
	if !j.Valid {
		return 0
	}
	if m, ok := j.Value.(map[string]any); ok {
		return 1 + uint64(len(m))
	}
	return 1
}

func sumArray(a []spanner.NullInt64) uint64 {
	s := uint64(len(a))
	for _, v := range a {
		if v.Valid {
			s += uint64(v.Int64)
		}
	}
	return s
}

// Sum returns the checksum of the row last scanned into d.
func (d *Dests) Sum() uint64 {
	var total uint64
	for i, p := range d.Ptrs {
		var v uint64
		switch p := p.(type) {
		case *int64:
			v = uint64(*p)
		case *string:
			v = SumString(*p)
		case *sql.RawBytes:
			v = sumBytes(*p)
		case *[]byte:
			v = sumBytes(*p)
		case *float64:
			v = math.Float64bits(*p)
		case *bool:
			v = SumBool(*p)
		case *time.Time:
			v = uint64(p.UnixNano())
		case *civil.Date:
			v = sumDate(*p)
		case *big.Rat:
			v = sumRat(p)
		case *spanner.NullJSON:
			v = sumJSON(p)
		case *[]spanner.NullInt64:
			v = sumArray(*p)
		}
		total += v * uint64(2*i+1)
	}
	return total
}

// ValueSum is the checksum of one generated Go value (see Sum).
func ValueSum(v any) uint64 {
	switch v := v.(type) {
	case int64:
		return uint64(v)
	case string:
		return SumString(v)
	case []byte:
		return sumBytes(v)
	case float64:
		return math.Float64bits(v)
	case bool:
		return SumBool(v)
	case time.Time:
		return uint64(v.UnixNano())
	case civil.Date:
		return sumDate(v)
	case big.Rat:
		return sumRat(&v)
	case spanner.NullJSON:
		return sumJSON(&v)
	case []spanner.NullInt64:
		return sumArray(v)
	}
	panic(fmt.Sprintf("valueSum: unexpected %T", v)) // generator bug
}

// Expected is the checksum a decoding arm must report for one
// measurement of w (all its queries or operations). A write adds the
// update count of each statement (1 from the fake server) or, for Apply,
// the number of mutations.
func Expected(w *workload.Workload) uint64 {
	rowsSum := func(from, to int) uint64 {
		var total uint64
		for r := from; r < to; r++ {
			for c := range w.Columns {
				total += ValueSum(w.GoValue(r, c)) * uint64(2*c+1)
			}
		}
		return total
	}
	var perQuery uint64
	switch w.Op {
	case workload.OpInsert, workload.OpBatchDML, workload.OpApply, workload.OpCopyFrom:
		return uint64(w.Statements) * uint64(w.Queries)
	case workload.OpTxn:
		return (rowsSum(0, w.Rows) + uint64(w.Statements-1)) * uint64(w.Queries)
	case workload.OpROTxn:
		return rowsSum(0, w.Rows) * uint64(w.Statements) * uint64(w.Queries)
	}
	if w.Cycle && w.Rows > w.CyclePeriod() {
		p := w.CyclePeriod()
		perQuery = rowsSum(0, p)*uint64(w.Rows/p) + rowsSum(0, w.Rows%p)
	} else {
		perQuery = rowsSum(0, w.Rows)
	}
	return perQuery * uint64(w.Queries)
}
