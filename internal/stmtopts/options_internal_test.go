package stmtopts

import (
	"database/sql/driver"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/spannerfast/spannerfast/internal/params"
)

func rawOpt(on bool) QueryOptions { return QueryOptions{RawDecode: &on} }

// checkList plays database/sql's argument check for one statement
// (driverArgsConnLocked): a fresh list, each argument checked in order at
// the position of the next kept one, Ordinal counting kept arguments,
// stopping at the first error. It returns the list the statement gets and
// whether the check passed.
func checkList(p *Pending, values []any) ([]driver.NamedValue, bool) {
	nvargs := make([]driver.NamedValue, len(values))
	n := 0
	for _, v := range values {
		nv := &nvargs[n]
		nv.Ordinal = n + 1
		nv.Value = v
		switch err := p.Check(nv, params.Convert); {
		case errors.Is(err, driver.ErrRemoveArgument):
			nvargs = nvargs[:len(nvargs)-1]
		case err != nil:
			return nil, false
		default:
			n++
		}
	}
	return nvargs, true
}

// TestPendingOptionsProperty: over random sequences of argument lists (with
// options, failing arguments, and prepared statements whose argument count
// database/sql rejects), every statement runs with exactly the options of
// its own argument list. The model follows database/sql: a connection's
// own statements get no count check; a prepared statement with NumInput n
// has its own checker and runs only with n kept arguments.
func TestPendingOptionsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var onConn Pending
	var prepared [3]Pending // NumInput 0, 1 and 2
	for i := range 50000 {
		var values []any
		var want *bool
		for range r.IntN(4) {
			switch r.IntN(4) {
			case 0:
				on := r.IntN(2) == 0
				values = append(values, rawOpt(on))
				want = &on
			case 1:
				if r.IntN(8) == 0 {
					values = append(values, make(chan int)) // fails its check
				} else {
					values = append(values, int64(i))
				}
			default:
				values = append(values, "x")
			}
		}
		p, numInput := &onConn, -1
		if n := r.IntN(4); n < 3 {
			p, numInput = &prepared[n], n
		}
		kept, ok := checkList(p, values)
		if !ok || (numInput >= 0 && len(kept) != numInput) {
			continue // database/sql returns an error; nothing runs
		}
		got, args := p.Take(kept)
		if len(args) != len(kept) {
			t.Fatalf("step %d: take changed %d arguments to %d", i, len(kept), len(args))
		}
		if (got.RawDecode == nil) != (want == nil) || (want != nil && *got.RawDecode != *want) {
			t.Fatalf("step %d: arguments %v ran with RawDecode %v, want %v", i, values, got.RawDecode, want)
		}
	}
}

// TestTakeOptionsAmongArguments: a caller using the driver directly passes
// QueryOptions without database/sql's check; they are taken out too.
func TestTakeOptionsAmongArguments(t *testing.T) {
	var p Pending
	args := []driver.NamedValue{{Ordinal: 1, Value: rawOpt(true)}, {Ordinal: 2, Value: int64(5)}, {Ordinal: 3, Value: rawOpt(false)}}
	o, rest := p.Take(args)
	if o.RawDecode == nil || *o.RawDecode || len(rest) != 1 || rest[0].Value != int64(5) {
		t.Fatalf("take = %v, %v; want RawDecode false and the one real argument", o.RawDecode, rest)
	}
	if args[0].Value != (rawOpt(true)) && args[1].Value != int64(5) {
		t.Fatal("take modified the caller's argument slice")
	}
}
