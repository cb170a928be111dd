package bulkload

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/grpc/status"
)

// Range is the rows [Start, End) of a source, numbered from 0 in the
// order the source gave them (skipped rows included).
type Range struct {
	Start, End int64
}

func (r Range) String() string { return fmt.Sprintf("[%d, %d)", r.Start, r.End) }

// Error is the error of a load that did not write every row. It accounts
// for each row the load read from its source: Committed, NotCommitted or
// Unknown. Rows from Read on were not read. Err is the first failure;
// status.Code(err) is its code, and errors.Is and errors.As see it.
//
// To resume, load the same source again with Options.Skip (or
// driver.CopyResume) set to Committed: every other row is written. Rows
// in Unknown may or may not be in the database: check them first when
// inserting (a second insert fails with ALREADY_EXISTS); an
// insert-or-update may simply write them again.
type Error struct {
	// Committed are the rows known to be committed, sorted and merged
	// (commits in flight together may finish in any order).
	Committed []Range
	// NotCommitted are rows that were read and are known not to be
	// committed: refused by Spanner, or never sent because the load
	// stopped.
	NotCommitted []Range
	// Unknown are rows whose commit may or may not have been applied
	// (txn.CommitOutcomeUnknownError, a cancelled commit, a BatchWrite
	// stream that broke off).
	Unknown []Range
	// Read is the number of rows read from the source; rows from Read
	// on were not read (and not written).
	Read int64
	// Row is the row whose values failed (bad value, Values error,
	// too large for one commit), or -1.
	Row int64
	// Err is the first failure.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("spannerfast: CopyFrom: ")
	if e.Row >= 0 {
		fmt.Fprintf(&b, "row %d: ", e.Row)
	}
	fmt.Fprintf(&b, "%v (rows committed: %s; not committed: %s", e.Err, ranges(e.Committed), ranges(e.NotCommitted))
	if len(e.Unknown) > 0 {
		fmt.Fprintf(&b, "; outcome unknown: %s", ranges(e.Unknown))
	}
	fmt.Fprintf(&b, "; rows from %d on not read)", e.Read)
	return b.String()
}

// Unwrap returns the first failure.
func (e *Error) Unwrap() error { return e.Err }

// GRPCStatus has the first failure's code.
func (e *Error) GRPCStatus() *status.Status { return status.New(status.Code(e.Err), e.Error()) }

// CommittedRows is the number of rows in Committed.
func (e *Error) CommittedRows() int64 { return count(e.Committed) }

func count(rs []Range) int64 {
	var n int64
	for _, r := range rs {
		n += r.End - r.Start
	}
	return n
}

func ranges(rs []Range) string {
	if len(rs) == 0 {
		return "none"
	}
	const most = 8
	parts := make([]string, 0, most+1)
	for i, r := range rs {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(rs)-most))
			break
		}
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// merge sorts rs and joins adjacent and overlapping ranges.
func merge(rs []Range) []Range {
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.Start, b.Start) })
	out := rs[:0]
	for _, r := range rs {
		if r.End <= r.Start {
			continue
		}
		if n := len(out); n > 0 && r.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}
