package sqlfloor

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// NewConnector returns a connector whose connections answer QueryContext
// of each workload's SQL (no arguments) with its rows, as the Go values a
// driver hands over (Workload.GoValue).
func NewConnector(ws []*workload.Workload) driver.Connector {
	c := &floorConnector{results: map[string]*floorResult{}}
	for _, w := range ws {
		r := &floorResult{n: w.Rows}
		for _, col := range w.Columns {
			r.cols = append(r.cols, col.Name)
		}
		for i := 0; i < min(w.Rows, Cycle); i++ {
			row := make([]driver.Value, len(w.Columns))
			for col := range row {
				row[col] = w.GoValue(i, col)
			}
			r.rows = append(r.rows, row)
		}
		c.results[w.SQL] = r
	}
	return c
}

// floorResult holds pre-decoded rows of one workload. Only the first
// Cycle distinct rows are kept (repeated), so that the floor's live
// heap does not slow the garbage collector for the other arms.
type floorResult struct {
	cols []string
	rows [][]driver.Value
	n    int // rows per query
}

// Cycle is the number of distinct rows a result keeps.
const Cycle = 1024

type floorConnector struct{ results map[string]*floorResult }

func (c *floorConnector) Connect(context.Context) (driver.Conn, error) { return &floorConn{c}, nil }
func (c *floorConnector) Driver() driver.Driver                        { return floorDriver{c} }

type floorDriver struct{ c *floorConnector }

func (d floorDriver) Open(string) (driver.Conn, error) { return &floorConn{d.c}, nil }

type floorConn struct{ c *floorConnector }

var errFloorUnsupported = errors.New("database/sql floor: only QueryContext is supported")

func (c *floorConn) Prepare(string) (driver.Stmt, error) { return nil, errFloorUnsupported }
func (c *floorConn) Close() error                        { return nil }
func (c *floorConn) Begin() (driver.Tx, error)           { return nil, errFloorUnsupported }

func (c *floorConn) QueryContext(_ context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, ok := c.c.results[query]
	if !ok || len(args) > 0 {
		return nil, fmt.Errorf("database/sql floor: no result for %q with %d args", query, len(args))
	}
	return &floorRows{r: r}, nil
}

type floorRows struct {
	r *floorResult
	i int
}

func (r *floorRows) Columns() []string { return r.r.cols }
func (r *floorRows) Close() error      { return nil }

func (r *floorRows) Next(dest []driver.Value) error {
	if r.i >= r.r.n {
		return io.EOF
	}
	copy(dest, r.r.rows[r.i%len(r.r.rows)])
	r.i++
	return nil
}
