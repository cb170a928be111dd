package main

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// Arm ids.
const (
	armTransport  = "transport-floor"
	armSQLFloor   = "sql-floor"
	armClient     = "client"
	armBorrow     = "client-borrow"
	armFastSafe   = "spannerfast-safe"
	armFastRaw    = "spannerfast-raw"
	armFastGzip   = "spannerfast-gzip"
	armFastOtel   = "spannerfast-otel"
	armGorm       = "spannerfast-gorm"
	databasePath  = "projects/p/instances/i/databases/d"
	progressWidth = 17
)

// env is what arms need to connect.
type env struct {
	addr      string // host:port of the fake server
	database  string
	workloads []*workload.Workload // the selected ones plus SELECT 1
}

// arm is one way of reading the results.
type arm interface {
	// run executes w.Queries queries of w and reads every row into typed
	// variables. It returns a checksum of the values read (for the transport
	// floor: the bytes received). hs, when not nil, is ticked once per row.
	run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error)
	close() error
}

// armSpec describes an arm to the registry.
type armSpec struct {
	id    string
	title string
	order int
	// available is false when the binary was built without what the arm
	// needs; note says what is missing.
	available bool
	note      string
	// verify says whether run's checksum must equal the expected checksum
	// of the workload (the floors do not decode, so they cannot).
	verify bool
	// optIn arms run only when -arms names them, not with "all": they
	// measure something other than the comparison every run publishes
	// (spannerfast-otel: what telemetry costs when it is on).
	optIn bool
	// applies says which workloads the arm runs; nil: the read workloads
	// that are neither partitioned nor latency-bound.
	applies func(w *workload.Workload) bool
	open    func(ctx context.Context, e *env) (arm, error)
}

// runs reports whether the arm runs w.
func (s armSpec) runs(w *workload.Workload) bool {
	if s.applies == nil {
		return w.Op == workload.OpQuery && w.Partitions == 0 && w.MessageDelay == 0
	}
	return s.applies(w)
}

// unavailableError is an arm's answer to a workload that needs an API the
// driver does not have (yet): the workload is reported as unavailable for
// that arm, not as failed, and not run again.
type unavailableError struct{ reason string }

func (e *unavailableError) Error() string { return "unavailable: " + e.reason }

var registry []armSpec

func register(s armSpec) { registry = append(registry, s) }

// allArms returns the registered arms in report order.
func allArms() []armSpec {
	out := append([]armSpec(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}

// knownArmIDs lists every arm id this tool knows, built or not.
var knownArmIDs = []string{armTransport, armSQLFloor, armClient, armBorrow, armFastSafe, armFastRaw, armFastGzip, armFastOtel, armGorm}

// selectArms picks the arms named in list ("" or "all": every available
// arm but the opt-in ones). Naming an arm that is not built is an error
// that says why.
func selectArms(list string) (selected []armSpec, skipped []armSpec, err error) {
	arms := allArms()
	if list == "" || list == "all" {
		for _, a := range arms {
			if a.optIn {
				continue
			}
			if a.available {
				selected = append(selected, a)
			} else {
				skipped = append(skipped, a)
			}
		}
		return selected, skipped, nil
	}
	want := map[string]bool{}
	for _, n := range workload.ListNames(list) {
		i := slices.IndexFunc(arms, func(a armSpec) bool { return a.id == n })
		if i >= 0 && !arms[i].available {
			return nil, nil, fmt.Errorf("arm %q is not available in this build: %s", n, arms[i].note)
		}
		if i < 0 {
			if slices.Contains(knownArmIDs, n) {
				return nil, nil, fmt.Errorf("arm %q is not compiled into this binary (built with -tags nospannerfast?)", n)
			}
			return nil, nil, fmt.Errorf("unknown arm %q (known: %s)", n, strings.Join(knownArmIDs, ", "))
		}
		want[n] = true
	}
	for _, a := range arms {
		if want[a.id] {
			selected = append(selected, a)
		}
	}
	if len(selected) == 0 {
		return nil, nil, fmt.Errorf("no arm selected in %q", list)
	}
	return selected, nil, nil
}

// dests are the typed variables one row is scanned into.
type dests struct {
	ptrs []any
}

// newDests returns the scan targets of w: int64, string, float64, bool,
// time.Time, civil.Date, []byte, big.Rat, spanner.NullJSON and
// []spanner.NullInt64; with raw, STRING and BYTES go into sql.RawBytes.
func newDests(w *workload.Workload, raw bool) *dests {
	d := &dests{ptrs: make([]any, len(w.Columns))}
	for i, c := range w.Columns {
		switch c.Kind {
		case workload.Int64:
			d.ptrs[i] = new(int64)
		case workload.String:
			if raw {
				d.ptrs[i] = new(sql.RawBytes)
			} else {
				d.ptrs[i] = new(string)
			}
		case workload.Float64:
			d.ptrs[i] = new(float64)
		case workload.Bool:
			d.ptrs[i] = new(bool)
		case workload.Timestamp:
			d.ptrs[i] = new(time.Time)
		case workload.Date:
			d.ptrs[i] = new(civil.Date)
		case workload.Bytes:
			if raw {
				d.ptrs[i] = new(sql.RawBytes)
			} else {
				d.ptrs[i] = new([]byte)
			}
		case workload.Numeric:
			d.ptrs[i] = new(big.Rat)
		case workload.JSON:
			d.ptrs[i] = new(spanner.NullJSON)
		case workload.ArrayInt64:
			d.ptrs[i] = new([]spanner.NullInt64)
		default:
			panic("newDests: unknown kind " + c.Kind.String()) // catalog bug
		}
	}
	return d
}

// The checksum of one value: cheap (a few ns), identical for a string and
// the same bytes, and for a DATE string and the civil.Date it names.
func sumString(s string) uint64 {
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

func sumBool(b bool) uint64 {
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

// sum returns the checksum of the row last scanned into d.
func (d *dests) sum() uint64 {
	var total uint64
	for i, p := range d.ptrs {
		var v uint64
		switch p := p.(type) {
		case *int64:
			v = uint64(*p)
		case *string:
			v = sumString(*p)
		case *sql.RawBytes:
			v = sumBytes(*p)
		case *[]byte:
			v = sumBytes(*p)
		case *float64:
			v = math.Float64bits(*p)
		case *bool:
			v = sumBool(*p)
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

// valueSum is the checksum of one generated Go value (see sum).
func valueSum(v any) uint64 {
	switch v := v.(type) {
	case int64:
		return uint64(v)
	case string:
		return sumString(v)
	case []byte:
		return sumBytes(v)
	case float64:
		return math.Float64bits(v)
	case bool:
		return sumBool(v)
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

// expectedSum is the checksum a decoding arm must report for one
// measurement of w (all its queries or operations). A write adds the
// update count of each statement (1 from the fake server) or, for Apply,
// the number of mutations.
func expectedSum(w *workload.Workload) uint64 {
	rowsSum := func(from, to int) uint64 {
		var total uint64
		for r := from; r < to; r++ {
			for c := range w.Columns {
				total += valueSum(w.GoValue(r, c)) * uint64(2*c+1)
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
	}
	if w.Cycle && w.Rows > w.CyclePeriod() {
		p := w.CyclePeriod()
		perQuery = rowsSum(0, p)*uint64(w.Rows/p) + rowsSum(0, w.Rows%p)
	} else {
		perQuery = rowsSum(0, w.Rows)
	}
	return perQuery * uint64(w.Queries)
}

// querier is what runSQL queries: a *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// runSQL reads w through database/sql, scanning into d.
func runSQL(ctx context.Context, db querier, w *workload.Workload, d *dests, hs *heapSampler, args ...any) (uint64, error) {
	var total uint64
	for q := 0; q < w.Queries; q++ {
		rows, err := db.QueryContext(ctx, w.SQL, args...)
		if err != nil {
			return 0, fmt.Errorf("query %d: %w", q, err)
		}
		sum, err := scanRows(rows, w, d, hs)
		if err != nil {
			return 0, fmt.Errorf("query %d %w", q, err)
		}
		total += sum
	}
	return total, nil
}

// scanRows reads and closes rows, which must hold w.Rows rows.
func scanRows(rows *sql.Rows, w *workload.Workload, d *dests, hs *heapSampler) (uint64, error) {
	var total uint64
	n := 0
	for rows.Next() {
		if err := rows.Scan(d.ptrs...); err != nil {
			rows.Close()
			return 0, fmt.Errorf("row %d: scan: %w", n, err)
		}
		total += d.sum()
		n++
		if hs != nil {
			hs.tick()
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return 0, fmt.Errorf("row %d: %w", n, err)
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("close: %w", err)
	}
	if n != w.Rows {
		return 0, fmt.Errorf("returned %d rows, want %d", n, w.Rows)
	}
	return total, nil
}
