package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestQueryCloseOrder runs queries on one connection with one caller
// context: full reads, rows closed early (as QueryRow does), rows closed
// late (after the next query started), and a query that hangs on the
// server. Each result is right, closing a query's rows never touches the
// next query's call, and cancelling the caller's context ends a running
// query.
func TestQueryCloseOrder(t *testing.T) {
	// Each result ends either with the end of the stream or with a message
	// marked last=true (as Spanner marks it), whose call ends in the
	// background.
	for _, last := range []bool{false, true} {
		t.Run(fmt.Sprintf("last=%v", last), func(t *testing.T) { testQueryCloseOrder(t, last) })
	}
}

func testQueryCloseOrder(t *testing.T, last bool) {
	const hanging = "SELECT SingerId, FirstName, LastName, Rating, Active FROM Singers WHERE SingerId = 2"
	s := fakespanner.Start(t)
	point := pointResult()
	point.Split = fakespanner.SplitOptions{Last: last}
	s.AddResult(pointQuery, point)
	h := pointResult()
	h.Split = fakespanner.SplitOptions{MaxValues: 5}
	h.Faults = []fakespanner.Fault{{AfterMessage: 1, Hang: true, Times: -1}}
	s.AddResult(hanging, h)
	// slow sends its second row 50 ms after the first.
	const slow = "SELECT SingerId, FirstName, LastName, Rating, Active FROM Singers WHERE SingerId < 3"
	sl := pointResult()
	sl.ResultSet.Rows = append(sl.ResultSet.Rows, sl.ResultSet.Rows[0])
	sl.Split = fakespanner.SplitOptions{MaxValues: 5, Last: last}
	sl.Faults = []fakespanner.Fault{{AfterMessage: 1, Delay: 50 * time.Millisecond, Times: -1}}
	s.AddResult(slow, sl)
	// three is three rows in three messages: reading two starts the
	// read-ahead goroutine, which reads the rest and the end.
	const three = "SELECT SingerId, FirstName, LastName, Rating, Active FROM Singers WHERE SingerId < 4"
	th := pointResult()
	th.ResultSet.Rows = append(th.ResultSet.Rows, th.ResultSet.Rows[0], th.ResultSet.Rows[0])
	th.Split = fakespanner.SplitOptions{MaxValues: 5, Last: last}
	s.AddResult(three, th)
	for _, prefetch := range []string{"prefetch_messages=1", "prefetch_messages=64"} {
		t.Run(prefetch, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := openFake(t, s, prefetch).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			readPoint := func(what string) {
				t.Helper()
				var name string
				if err := c.QueryRowContext(ctx, pointQuery).Scan(new(int64), &name, new(string), new(float64), new(bool)); err != nil || name != "Alice" {
					t.Fatalf("%s: %q, %v", what, name, err)
				}
			}
			for i := range 20 {
				readPoint("point read")
				rows, err := c.QueryContext(ctx, pointQuery)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for rows.Next() {
					n++
				}
				if err := rows.Err(); err != nil || n != 1 {
					t.Fatalf("round %d: %d rows, %v", i, n, err)
				}
				rows.Close()
				// This one is closed while its call hangs, which cancels
				// it.
				rows, err = c.QueryContext(ctx, hanging)
				if err != nil {
					t.Fatal(err)
				}
				if !rows.Next() {
					t.Fatalf("round %d: no first row: %v", i, rows.Err())
				}
				rows.Close()
				readPoint("after an early close")
			}

			// Rows left open after their last row was read ahead, while
			// the next query starts: the late Close of the first must not
			// cancel the second.
			for i := range 5 {
				first, err := c.QueryContext(ctx, three)
				if err != nil {
					t.Fatal(err)
				}
				first.Next()
				first.Next()
				time.Sleep(10 * time.Millisecond) // the end arrives meanwhile
				second, err := c.QueryContext(ctx, slow)
				if err != nil {
					t.Fatal(err)
				}
				second.Next()
				first.Close()
				n := 1
				for second.Next() {
					n++
				}
				if err := second.Err(); err != nil || n != 2 {
					t.Fatalf("round %d: the second query read %d rows, %v, after the first one's late Close", i, n, err)
				}
			}

			// A query ends when the caller's context is cancelled.
			readPoint("before the cancelled query")
			rows, err := c.QueryContext(ctx, hanging)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			rows.Next()
			go func() { time.Sleep(20 * time.Millisecond); cancel() }()
			for rows.Next() {
			}
			if err := rows.Err(); status.Code(err) != codes.Canceled && !errors.Is(err, context.Canceled) {
				t.Fatalf("hanging query after the caller's cancel: %v, want Canceled", err)
			}
		})
	}
}
