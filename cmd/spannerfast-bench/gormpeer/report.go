package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/gormwork"
)

type results struct {
	arms   []string
	ops    []gormwork.Op
	rounds map[string][]measurement // by arm + "/" + op
	failed map[string]string
}

func newResults(arms []*arm, ops []gormwork.Op) *results {
	r := &results{ops: ops, rounds: map[string][]measurement{}, failed: map[string]string{}}
	for _, a := range arms {
		r.arms = append(r.arms, a.name)
	}
	return r
}

func (r *results) add(arm, op string, m measurement) {
	r.rounds[arm+"/"+op] = append(r.rounds[arm+"/"+op], m)
}

func (r *results) fail(arm, op string, err error) {
	if _, ok := r.failed[arm+"/"+op]; !ok {
		r.failed[arm+"/"+op] = err.Error()
	}
}

// median of f over the rounds of arm and op; ok is false when none ran.
func (r *results) median(arm, op string, f func(measurement) float64) (float64, bool) {
	ms := r.rounds[arm+"/"+op]
	if len(ms) == 0 {
		return 0, false
	}
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

// baseline is the spannerfast arm with the same PrepareStmt as arm.
func baseline(arm string) string {
	if strings.HasSuffix(arm, "-prep") {
		return "spannerfast-prep"
	}
	return "spannerfast"
}

func (r *results) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# GORM: spannergorm on spannerfast vs go-gorm-spanner on go-sql-spanner\n\n")
	fmt.Fprintf(w, "%s, %s/%s, %d CPUs; medians of %d rounds.\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), r.maxRounds())
	fmt.Fprintf(w, "Operations:\n\n")
	for _, op := range r.ops {
		fmt.Fprintf(w, "- %s: %s\n", op.Name, op.Description)
	}
	table := func(title string, f func(measurement) float64, format string, ratio bool) {
		fmt.Fprintf(w, "\n## %s\n\n| operation |", title)
		for _, a := range r.arms {
			fmt.Fprintf(w, " %s |", a)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(r.arms)))
		for _, op := range r.ops {
			fmt.Fprintf(w, "| %s |", op.Name)
			for _, a := range r.arms {
				v, ok := r.median(a, op.Name, f)
				if !ok {
					fmt.Fprintf(w, " %s |", r.missing(a, op.Name))
					continue
				}
				cell := fmt.Sprintf(format, v)
				if b, bok := r.median(baseline(a), op.Name, f); ratio && bok && b > 0 && a != baseline(a) {
					cell += fmt.Sprintf(" (%.2fx)", v/b)
				}
				fmt.Fprintf(w, " %s |", cell)
			}
			fmt.Fprintln(w)
		}
	}
	table("CPU µs per operation (x: relative to spannerfast with the same PrepareStmt)",
		func(m measurement) float64 { return m.cpuPerOp() / 1e3 }, "%.1f", true)
	table("Allocations per operation", measurement.allocsPerOp, "%.0f", true)
	table("KiB allocated per operation", func(m measurement) float64 { return m.bytesPerOp() / 1024 }, "%.1f", true)
	table("Wall µs per operation", func(m measurement) float64 { return float64(m.WallNs) / float64(m.Ops) / 1e3 }, "%.1f", false)
	var notes []string
	for k, msg := range r.failed {
		notes = append(notes, fmt.Sprintf("- %s: %s", k, msg))
	}
	if len(notes) > 0 {
		slices.Sort(notes)
		fmt.Fprintf(w, "\n## Refused or failed\n\n%s\n", strings.Join(notes, "\n"))
	}
}

func (r *results) missing(arm, op string) string {
	if _, ok := r.failed[arm+"/"+op]; ok {
		return "refused"
	}
	return "-"
}

func (r *results) maxRounds() int {
	n := 0
	for _, ms := range r.rounds {
		n = max(n, len(ms))
	}
	return n
}

func (r *results) writeJSON(file string) error {
	out := struct {
		Go     string                   `json:"go"`
		CPUs   int                      `json:"cpus"`
		Rounds map[string][]measurement `json:"rounds"`
		Failed map[string]string        `json:"failed"`
	}{runtime.Version(), runtime.NumCPU(), r.rounds, r.failed}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}
