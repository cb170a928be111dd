package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/gormwork"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// serveFlag, as the first argument, makes the binary the server process.
const serveFlag = "-serve"

// scale of the served workloads: gorm10k reads 10,000 rows per query.
const scale = 1

type config struct {
	rounds, ops, warmups int
	arms, opNames        []string
	cpuArm, cpuFile      string
	memFile, jsonFile    string
	profileFor           time.Duration
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == serveFlag {
		if err := serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "gormpeer server:", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	var arms, ops string
	flag.IntVar(&cfg.rounds, "rounds", 9, "alternating rounds; the median is reported (0: none, for a profile only)")
	flag.IntVar(&cfg.ops, "ops", 0, "operations per arm, operation and round (0: 10 for find, 50 for preload, 200 for the creates)")
	flag.IntVar(&cfg.warmups, "warmups", 3, "unmeasured operations before each measurement")
	flag.StringVar(&arms, "arms", strings.Join(armNames, ","), "comma list of arms")
	flag.StringVar(&ops, "workloads", "", "comma list of operations (default all: find, create, create-assoc, create-assoc-full, preload)")
	flag.StringVar(&cfg.cpuArm, "cpuprofile-arm", "", "after the rounds, run every operation with this arm under the CPU profiler")
	flag.StringVar(&cfg.cpuFile, "cpuprofile", "", "CPU profile file (default cpu-ARM.pprof)")
	flag.StringVar(&cfg.memFile, "memprofile", "", "with -cpuprofile-arm: write the allocation profile of that run to this file")
	flag.StringVar(&cfg.jsonFile, "json", "", "also write the results as JSON to this file")
	flag.DurationVar(&cfg.profileFor, "profile-time", 10*time.Second, "with -cpuprofile-arm: how long each operation runs under the profiler")
	flag.Parse()
	cfg.arms = workload.ListNames(arms)
	cfg.opNames = workload.ListNames(ops)
	if err := run(context.Background(), cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gormpeer:", err)
		os.Exit(1)
	}
}

// serve is the server process: it prints "ADDR host:port" and serves
// until stdin closes.
func serve(stdin io.Reader, stdout io.Writer) error {
	ws, err := workload.Select(gormwork.ServerWorkloads, scale)
	if err != nil {
		return err
	}
	srv, err := benchserver.New(ws)
	if err != nil {
		return err
	}
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Fprintf(stdout, "ADDR %s\n", addr)
	_, _ = io.Copy(io.Discard, stdin)
	return nil
}

// startServer runs this binary with -serve and returns the address it
// serves on and a function that stops it.
func startServer() (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, serveFlag)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { stdin.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "ADDR ")
	if err != nil || !ok {
		stop()
		return "", nil, fmt.Errorf("server process said %q: %v", line, err)
	}
	return addr, stop, nil
}

// defaultOps is the operations per measurement when -ops is 0.
func defaultOps(op string) int {
	switch op {
	case "find":
		return 10
	case "preload":
		return 50
	}
	return 200
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	ws, err := workload.Select(gormwork.ServerWorkloads, scale)
	if err != nil {
		return err
	}
	ops, err := gormwork.Ops(ws)
	if err != nil {
		return err
	}
	if len(cfg.opNames) > 0 {
		ops = slices.DeleteFunc(ops, func(o gormwork.Op) bool { return !slices.Contains(cfg.opNames, o.Name) })
		if len(ops) == 0 {
			return fmt.Errorf("no known operation in %v", cfg.opNames)
		}
	}
	addr, stop, err := startServer()
	if err != nil {
		return err
	}
	defer stop()
	var arms []*arm
	for _, name := range cfg.arms {
		a, err := openArm(name, addr)
		if err != nil {
			return err
		}
		defer a.close()
		arms = append(arms, a)
	}
	res := newResults(arms, ops)
	// Operation i of a measurement gets a key no other operation of the
	// run uses (the server keeps no rows, but the keys stay realistic).
	next := 0
	for round := 0; round < cfg.rounds; round++ {
		for k := range arms {
			a := arms[(k+round)%len(arms)]
			for _, op := range ops {
				n := cfg.ops
				if n == 0 {
					n = defaultOps(op.Name)
				}
				m, err := measure(ctx, a, op, n, cfg.warmups, &next)
				if err != nil {
					if round == 0 {
						fmt.Fprintf(stderr, "%s %s: %v\n", a.name, op.Name, err)
					}
					res.fail(a.name, op.Name, err)
					continue
				}
				res.add(a.name, op.Name, m)
				fmt.Fprintf(stderr, "round %d %-16s %-18s %8.1f µs CPU/op %8.0f allocs/op\n",
					round+1, a.name, op.Name, m.cpuPerOp()/1e3, m.allocsPerOp())
			}
		}
	}
	if cfg.rounds > 0 {
		res.writeMarkdown(stdout)
	}
	if cfg.jsonFile != "" {
		if err := res.writeJSON(cfg.jsonFile); err != nil {
			return err
		}
	}
	if cfg.cpuArm != "" {
		i := slices.IndexFunc(arms, func(a *arm) bool { return a.name == cfg.cpuArm })
		if i < 0 {
			return fmt.Errorf("-cpuprofile-arm %q is not among the arms", cfg.cpuArm)
		}
		return profile(ctx, cfg, arms[i], ops, &next, stderr)
	}
	return nil
}

// profile runs every operation with a under the CPU profiler (and the
// allocation profiler with -memprofile), as many times as a measurement.
func profile(ctx context.Context, cfg config, a *arm, ops []gormwork.Op, next *int, stderr io.Writer) error {
	file := cfg.cpuFile
	if file == "" {
		file = "cpu-" + a.name + ".pprof"
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	if cfg.memFile != "" {
		runtime.MemProfileRate = 1
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	start := time.Now()
	var runErr error
	for _, op := range ops {
		n := cfg.ops
		if n == 0 {
			n = defaultOps(op.Name)
		}
		// Measurements until -profile-time is spent, for enough samples.
		for opStart := time.Now(); time.Since(opStart) < cfg.profileFor; {
			if _, err := measure(ctx, a, op, n, 0, next); err != nil {
				runErr = errors.Join(runErr, fmt.Errorf("%s: %w", op.Name, err))
				break
			}
		}
	}
	pprof.StopCPUProfile()
	fmt.Fprintf(stderr, "CPU profile of %s (%v) in %s\n", a.name, time.Since(start).Round(time.Millisecond), file)
	if cfg.memFile != "" {
		mf, err := os.Create(cfg.memFile)
		if err != nil {
			return err
		}
		defer mf.Close()
		if err := pprof.Lookup("allocs").WriteTo(mf, 0); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "allocation profile in %s\n", cfg.memFile)
	}
	return runErr
}
