package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// config is everything a run needs; flags fill it in.
type config struct {
	workloads      string
	arms           string
	scale          float64
	rounds         int
	jsonPath       string
	chartPath      string
	cpuProfileArm  string
	cpuProfilePath string
	memProfilePath string
	quick          bool
	// inProcess serves from this process instead of a child process (tests).
	inProcess bool
	// serverTimeout bounds the wait for the child server's address.
	serverTimeout time.Duration
	// warmups is the number of SELECT 1 queries per arm before round 1.
	warmups int
}

// runState is one benchmark run.
type runState struct {
	cfg       config
	stderr    io.Writer
	workloads []*workload.Workload
	arms      []armSpec
	skipped   []armSpec
	open      map[string]arm
	openErr   map[string]error
	expected  map[string]uint64
	warm      map[string]*workload.Workload    // warm-up variant by workload name
	results   map[string]map[string]*armResult // arm -> workload -> result
	server    string
}

// armResult collects the rounds of one arm over one workload.
type armResult struct {
	rounds      []measurement
	err         error
	unavailable string // the arm cannot run the workload (see unavailableError)
}

func (cfg *config) validate() error {
	if !(cfg.scale > 0) || cfg.scale > 100 {
		return fmt.Errorf("-scale %v: want a factor in (0, 100]", cfg.scale)
	}
	if cfg.rounds < 1 || cfg.rounds > 100 {
		return fmt.Errorf("-rounds %d: want 1 to 100", cfg.rounds)
	}
	return nil
}

// run is the whole tool minus flag parsing: it starts the server, measures
// every arm on every workload for cfg.rounds interleaved rounds, and writes
// the Markdown report to stdout, progress to stderr, and the JSON and chart
// files.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) (*report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ws, err := workload.Select(cfg.workloads, cfg.scale)
	if err != nil {
		return nil, err
	}
	arms, skipped, err := selectArms(cfg.arms)
	if err != nil {
		return nil, err
	}
	// An arm that runs none of the workloads (a floor for writes) is not
	// started.
	var idle []string
	arms = slices.DeleteFunc(arms, func(a armSpec) bool {
		none := !slices.ContainsFunc(ws, a.runs)
		if none {
			idle = append(idle, a.id)
		}
		return none
	})
	if len(arms) == 0 {
		return nil, fmt.Errorf("no selected arm runs the selected workloads")
	}
	if cfg.cpuProfileArm != "" {
		found := false
		for _, a := range arms {
			found = found || a.id == cfg.cpuProfileArm
		}
		if !found {
			return nil, fmt.Errorf("-cpuprofile-arm %q is not one of the selected arms", cfg.cpuProfileArm)
		}
	}
	st := &runState{cfg: cfg, stderr: stderr, workloads: ws, arms: arms, skipped: skipped,
		open: map[string]arm{}, openErr: map[string]error{}, expected: map[string]uint64{},
		results: map[string]map[string]*armResult{}}
	for _, a := range skipped {
		st.progress("arm %s skipped: %s", a.id, a.note)
	}
	if len(idle) > 0 {
		st.progress("arms %s run none of the selected workloads", strings.Join(idle, ", "))
	}
	if !spannerfastBuilt {
		st.progress("spannerfast arms not compiled in (built with -tags nospannerfast)")
	}

	// The expected checksums are computed while the server encodes.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, w := range ws {
			st.expected[w.Name] = scan.Expected(w)
		}
	}()
	addr, stop, err := st.startServer(ctx)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	defer stop()

	one, err := workload.Select("select1", 1)
	if err != nil {
		return nil, err
	}
	served := append([]*workload.Workload(nil), ws...)
	st.warm = map[string]*workload.Workload{}
	for _, w := range ws {
		st.warm[w.Name] = w.WarmUp()
		served = append(served, st.warm[w.Name])
	}
	e := &env{addr: addr, database: databasePath, workloads: append(served, one[0])}
	st.openArms(ctx, e, one[0])
	defer st.closeArms()

	if err := st.rounds(ctx); err != nil {
		return nil, err
	}
	if cfg.cpuProfileArm != "" {
		if err := st.profile(ctx); err != nil {
			return nil, err
		}
	}
	rep := st.report()
	if err := writeMarkdown(stdout, rep); err != nil {
		return nil, fmt.Errorf("writing the Markdown report: %w", err)
	}
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, rep); err != nil {
			return nil, err
		}
		st.progress("wrote %s", cfg.jsonPath)
	}
	if cfg.chartPath != "" {
		if err := writeChart(cfg.chartPath, rep); err != nil {
			return nil, err
		}
		st.progress("wrote %s", cfg.chartPath)
	}
	return rep, nil
}

func (st *runState) progress(format string, args ...any) {
	fmt.Fprintf(st.stderr, "spannerfast-bench: "+format+"\n", args...)
}

// startServer starts the fake server, by default as a child process that
// runs this binary with -serve, so that the server's allocations and CPU
// time are not counted with the client's.
func (st *runState) startServer(ctx context.Context) (addr string, stop func(), err error) {
	names := make([]string, len(st.workloads))
	for i, w := range st.workloads {
		names[i] = w.Name
	}
	if st.cfg.inProcess {
		srv, err := benchserver.New(st.workloads)
		if err != nil {
			return "", nil, err
		}
		addr, err := srv.Start("127.0.0.1:0")
		if err != nil {
			return "", nil, err
		}
		st.server = "in-process"
		st.progress("fake server in this process at %s", addr)
		return addr, srv.Stop, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("finding this binary to start the server: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, serveFlag,
		"-scale", strconv.FormatFloat(st.cfg.scale, 'g', -1, 64),
		"-workloads", strings.Join(names, ","))
	cmd.Stderr = st.stderr
	stdin, err := cmd.StdinPipe() // the child exits when this closes
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	st.progress("starting the fake server process (encoding the results)")
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting the server process: %w", err)
	}
	stop = func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
	}()
	timeout := st.cfg.serverTimeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	select {
	case line, ok := <-lines:
		if !ok || !strings.HasPrefix(line, addrPrefix) {
			stop()
			return "", nil, fmt.Errorf("server process did not report its address (got %q)", line)
		}
		addr = strings.TrimPrefix(line, addrPrefix)
	case <-time.After(timeout):
		stop()
		return "", nil, fmt.Errorf("server process did not start within %v", timeout)
	}
	st.server = fmt.Sprintf("separate process (pid %d)", cmd.Process.Pid)
	st.progress("fake server process %d at %s", cmd.Process.Pid, addr)
	return addr, stop, nil
}

// openArms connects every arm and warms it up; an arm that fails is
// reported and left out, the others still run.
func (st *runState) openArms(ctx context.Context, e *env, selectOne *workload.Workload) {
	warm := *selectOne
	warm.Queries = st.cfg.warmups
	if warm.Queries == 0 {
		warm.Queries = 20
	}
	for _, s := range st.arms {
		a, err := s.open(ctx, e)
		if err == nil {
			if _, werr := a.run(ctx, &warm, nil); werr != nil {
				err = fmt.Errorf("warm-up SELECT 1: %w", werr)
				_ = a.close()
			}
		}
		if err != nil {
			st.openErr[s.id] = err
			st.progress("arm %s failed to start: %v", s.id, err)
			continue
		}
		st.open[s.id] = a
	}
}

func (st *runState) closeArms() {
	for id, a := range st.open {
		if err := a.close(); err != nil {
			st.progress("closing %s: %v", id, err)
		}
	}
}

// rounds measures every arm on every workload, round after round; the arm
// order rotates from round to round so no arm always runs first.
func (st *runState) rounds(ctx context.Context) error {
	for r := 0; r < st.cfg.rounds; r++ {
		for _, w := range st.workloads {
			n := len(st.arms)
			for k := 0; k < n; k++ {
				s := st.arms[(k+r)%n]
				a, ok := st.open[s.id]
				if !ok || !s.runs(w) {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				res := st.result(s.id, w.Name)
				if res.err != nil || res.unavailable != "" {
					continue // failed or unavailable in an earlier round
				}
				m, err := measure(ctx, a, w, st.warm[w.Name])
				var unavailable *unavailableError
				if errors.As(err, &unavailable) {
					res.unavailable = unavailable.reason
					st.progress("round %d/%d %-14s %-*s unavailable: %s", r+1, st.cfg.rounds, w.Name, progressWidth, s.id, unavailable.reason)
					continue
				}
				if err == nil && s.verify && m.Checksum != st.expected[w.Name] {
					err = fmt.Errorf("read wrong values: checksum %#x, want %#x", m.Checksum, st.expected[w.Name])
				}
				if err != nil {
					res.err = err
					st.progress("round %d/%d %-14s %-*s FAILED: %v", r+1, st.cfg.rounds, w.Name, progressWidth, s.id, err)
					continue
				}
				res.rounds = append(res.rounds, m)
				st.progress("round %d/%d %-14s %-*s %s", r+1, st.cfg.rounds, w.Name, progressWidth, s.id, describe(w, m))
			}
		}
	}
	return nil
}

func (st *runState) result(armID, wl string) *armResult {
	byW := st.results[armID]
	if byW == nil {
		byW = map[string]*armResult{}
		st.results[armID] = byW
	}
	r := byW[wl]
	if r == nil {
		r = &armResult{}
		byW[wl] = r
	}
	return r
}

// describe is the progress summary of one measurement.
func describe(w *workload.Workload, m measurement) string {
	rows := float64(w.TotalRows())
	var s string
	if w.PerQuery {
		q, unit := float64(w.Queries), perWhat(w.Op)
		s = fmt.Sprintf("%8.1f µs CPU/%s %8.1f allocs/%s", float64(m.CPU.Nanoseconds())/q/1e3, unit, float64(m.Mallocs)/q, unit)
	} else {
		s = fmt.Sprintf("%8.0f ns CPU/row   %8.2f allocs/row", float64(m.CPU.Nanoseconds())/rows, float64(m.Mallocs)/rows)
	}
	s += fmt.Sprintf("  (%.2fs wall)", m.Wall.Seconds())
	if w.PeakHeap {
		s += fmt.Sprintf("  peak heap %.1f MiB", float64(m.PeakHeap)/(1<<20))
	}
	return s
}

// profile runs the profiled arm once more over every workload with the CPU
// profiler on, after the measured rounds (so the profiler does not skew
// them).
func (st *runState) profile(ctx context.Context) error {
	id := st.cfg.cpuProfileArm
	a, ok := st.open[id]
	if !ok {
		return fmt.Errorf("-cpuprofile-arm %s: the arm did not start: %w", id, st.openErr[id])
	}
	path := st.cfg.cpuProfilePath
	if path == "" {
		path = "cpu-" + id + ".pprof"
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the CPU profile: %w", err)
	}
	st.progress("profiling %s over all workloads into %s", id, path)
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("starting the CPU profile: %w", err)
	}
	if st.cfg.memProfilePath != "" {
		// Every allocation of the profiled run is recorded (the rounds
		// before ran at the default rate, so they hardly show).
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1
	}
	var runErr error
	spec := st.arms[slices.IndexFunc(st.arms, func(s armSpec) bool { return s.id == id })]
	for _, w := range st.workloads {
		if !spec.runs(w) {
			continue
		}
		if _, err := runWorkload(ctx, a, w, nil); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("%s: %w", w.Name, err))
		}
	}
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the CPU profile: %w", err)
	}
	if runErr != nil {
		st.progress("profiled run had errors: %v", runErr)
	}
	return st.writeMemProfile()
}

// writeMemProfile writes the allocation profile of the profiled run, if
// asked for.
func (st *runState) writeMemProfile() error {
	if st.cfg.memProfilePath == "" {
		return nil
	}
	f, err := os.Create(st.cfg.memProfilePath)
	if err != nil {
		return fmt.Errorf("creating the allocation profile: %w", err)
	}
	runtime.GC() // the profile is complete as of the last collection
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("writing the allocation profile: %w", err)
	}
	return f.Close()
}

// goInfo describes the toolchain and machine for the report.
func goInfo() (string, string, int, int) {
	return runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0)
}
