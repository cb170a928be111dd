package rows_test

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/rows"
)

// countingHook wraps each error it is given and counts the calls.
type countingHook struct{ calls int }

func (h *countingHook) RowsError(err error) error {
	h.calls++
	return fmt.Errorf("hooked: %w", err)
}

// TestErrorHook: Options.Errors sees the error that ends the rows, once,
// whether it comes mid-stream or from a result without columns (DML), and
// never the end of the rows.
func TestErrorHook(t *testing.T) {
	boom := status.Error(codes.Unavailable, "connection reset")
	for _, tc := range []struct {
		name string
		msgs [][]byte
	}{
		{"rows", [][]byte{prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(str("1"), str("a"), list())})}},
		{"no columns", [][]byte{prs(&spannerpb.PartialResultSet{Metadata: md()})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStream(t, tc.msgs...)
			s.err = boom
			h := &countingHook{}
			r, err := rows.Open(s, rows.Options{Errors: h})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			dest := make([]driver.Value, len(r.Columns()))
			for err = r.Next(dest); err == nil; err = r.Next(dest) {
			}
			if !errors.Is(err, boom) || err.Error() != "hooked: "+boom.Error() {
				t.Fatalf("Next: %v, want the hooked stream error", err)
			}
			if again := r.Next(dest); again != err {
				t.Errorf("second Next: %v", again)
			}
			if h.calls != 1 {
				t.Errorf("hook called %d times, want 1", h.calls)
			}
		})
	}
	t.Run("end of rows", func(t *testing.T) {
		s := newStream(t, prs(&spannerpb.PartialResultSet{Metadata: threeCols, Values: vals(str("1"), str("a"), list())}))
		h := &countingHook{}
		r, err := rows.Open(s, rows.Options{Errors: h})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		dest := make([]driver.Value, 3)
		for err = r.Next(dest); err == nil; err = r.Next(dest) {
		}
		if err != io.EOF || h.calls != 0 {
			t.Fatalf("Next: %v, hook calls %d; want io.EOF untouched", err, h.calls)
		}
	})
}
