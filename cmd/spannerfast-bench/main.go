package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// serveFlag, as the first argument, turns the binary into the fake server
// (the benchmark starts itself that way); it is not listed in -help.
const serveFlag = "-serve"

// addrPrefix starts the line on which the server process reports its
// address.
const addrPrefix = "ADDR "

// Defaults of -quick.
const (
	quickScale  = 0.1
	quickRounds = 2
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == serveFlag {
		if err := serveMain(os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "spannerfast-bench server:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if _, err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "spannerfast-bench:", err)
		cancel()
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("spannerfast-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	fs.StringVar(&cfg.workloads, "workloads", "all",
		"comma-separated workloads: "+strings.Join(workload.Names(), ", ")+
			", or the groups all, "+workload.GroupReads+", "+workload.GroupWrites)
	fs.StringVar(&cfg.arms, "arms", "all",
		"comma-separated arms: "+strings.Join(knownArmIDs, ", ")+" (all: every arm built in but "+armFastOtel+" and "+armFastGzip+", which run only when named)")
	fs.Float64Var(&cfg.scale, "scale", 1, "multiplies row counts (single-query workloads) and query counts (point, manycols, strings800)")
	fs.IntVar(&cfg.rounds, "rounds", 3, "interleaved rounds; the best round is reported")
	fs.StringVar(&cfg.jsonPath, "json", "bench-results.json", "write machine-readable results here (\"\" to skip)")
	fs.StringVar(&cfg.chartPath, "chart", "bench-chart.png", "write a PNG chart here (\"\" to skip)")
	fs.StringVar(&cfg.cpuProfileArm, "cpuprofile-arm", "", "after the rounds, run this arm once more over all workloads under the CPU profiler")
	fs.StringVar(&cfg.cpuProfilePath, "cpuprofile", "", "CPU profile file of -cpuprofile-arm (default cpu-<arm>.pprof)")
	fs.StringVar(&cfg.memProfilePath, "memprofile", "", "with -cpuprofile-arm: also write an allocation profile of that run (every allocation recorded) here")
	fs.BoolVar(&cfg.quick, "quick", false, fmt.Sprintf("quick run: -scale %g -rounds %d unless given", quickScale, quickRounds))
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run ./cmd/spannerfast-bench [flags]\n\n"+
			"Measures client CPU time, allocations and heap of Spanner result readers against a fake\n"+
			"server process. Build with -tags spanner_vtproto for the client-borrow arm, and with\n"+
			"-tags nospannerfast to leave out the spannerfast arms.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments: %q", fs.Args())
		fmt.Fprintln(stderr, "spannerfast-bench:", err)
		return cfg, err
	}
	if cfg.quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["scale"] {
			cfg.scale = quickScale
		}
		if !set["rounds"] {
			cfg.rounds = quickRounds
		}
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(stderr, "spannerfast-bench:", err)
		return cfg, err
	}
	return cfg, nil
}

// serveMain is the server process: it encodes the results, prints
// "ADDR host:port" on stdout and serves until its stdin closes (the parent
// exited or is done) or it is killed.
func serveMain(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("spannerfast-bench -serve", flag.ContinueOnError)
	scale := fs.Float64("scale", 1, "row count factor")
	names := fs.String("workloads", "all", "workloads to serve")
	listen := fs.String("listen", "127.0.0.1:0", "listen address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ws, err := workload.Select(*names, *scale)
	if err != nil {
		return err
	}
	srv, err := benchserver.New(ws)
	if err != nil {
		return err
	}
	addr, err := srv.Start(*listen)
	if err != nil {
		return err
	}
	defer srv.Stop()
	if _, err := fmt.Fprintln(stdout, addrPrefix+addr); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, stdin)
	return nil
}
