package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
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

// querier is what runSQL queries: a *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// runSQL reads w through database/sql, scanning into d.
func runSQL(ctx context.Context, db querier, w *workload.Workload, d *scan.Dests, hs *heapSampler, args ...any) (uint64, error) {
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
func scanRows(rows *sql.Rows, w *workload.Workload, d *scan.Dests, hs *heapSampler) (uint64, error) {
	var total uint64
	n := 0
	for rows.Next() {
		if err := rows.Scan(d.Ptrs...); err != nil {
			rows.Close()
			return 0, fmt.Errorf("row %d: scan: %w", n, err)
		}
		total += d.Sum()
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
