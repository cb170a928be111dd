package scratchprof

import (
	"bufio"
	"context"
	"database/sql"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
	_ "github.com/spannerfast/spannerfast/driver"
)

var wl = flag.String("wl", "narrow", "workload")
var rawFlag = flag.Bool("raw", true, "raw")

func BenchmarkWorkload(b *testing.B) {
	cmd := exec.Command("/tmp/sfb", "-serve", "-workloads", *wl)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Start()
	defer func() { stdin.Close(); cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	addr := strings.TrimSpace(strings.TrimPrefix(line, "ADDR "))
	ws, err := workload.Select(*wl, 1)
	if err != nil {
		b.Fatal(err)
	}
	w := ws[0]
	dsn := addr + "/projects/p/instances/i/databases/d;usePlainText=true"
	if *rawFlag {
		dsn += ";rawDecode=true"
	}
	db, _ := sql.Open("spannerfast", dsn)
	defer db.Close()
	ctx := context.Background()
	n := len(w.Columns)
	dest := make([]any, n)
	for i := range dest {
		var x any
		dest[i] = &x
	}
	b.ReportAllocs()
	rowsTotal := 0
	for b.Loop() {
		rows, err := db.QueryContext(ctx, w.SQL)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			rowsTotal++
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rowsTotal), "ns/row")
	_ = os.Stderr
}
