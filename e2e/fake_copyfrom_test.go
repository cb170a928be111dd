package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/bulkload"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/txn"
)

// CopyFrom against the scripted fake server: the shape of each Commit
// (mutations as Spanner counts them, request bytes), and the accounting of
// rows when a commit fails or its outcome is unknown.

// answerIndexColumns makes the fake answer CopyFrom's question for the
// number of index columns of a table with n.
func answerIndexColumns(s *fakespanner.Server, n int64) {
	s.AddResult(bulkload.IndexColumnsGoogleSQL, &fakespanner.Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Type: typ(spannerpb.TypeCode_INT64)},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue(fmt.Sprint(n))}}},
	}})
}

// copyRows returns n rows of cols columns: an INT64 key (the row's index)
// and strings of width bytes.
func copyRows(n, cols, width int) [][]any {
	rows := make([][]any, n)
	pad := strings.Repeat("x", width)
	for i := range rows {
		row := []any{int64(i)}
		for c := 1; c < cols; c++ {
			row = append(row, pad)
		}
		rows[i] = row
	}
	return rows
}

func copyCols(n int) []string {
	cols := []string{"Id"}
	for c := 1; c < n; c++ {
		cols = append(cols, fmt.Sprintf("C%d", c))
	}
	return cols
}

// commitRows returns the row keys of each Commit the server received,
// checking that each commit holds at most maxMuts mutations as Spanner
// counts them (rowMuts per row) and at most maxBytes bytes.
func commitRows(t *testing.T, s *fakespanner.Server, rowMuts, maxMuts, maxBytes int64) [][]int64 {
	t.Helper()
	var out [][]int64
	for _, r := range s.RequestsFor("Commit") {
		req := r.Message.(*spannerpb.CommitRequest)
		if size := int64(proto.Size(req)); size > maxBytes {
			t.Errorf("a Commit of %d bytes, more than %d", size, maxBytes)
		}
		var keys []int64
		for _, m := range req.GetMutations() {
			w := m.GetInsert()
			if w == nil {
				w = m.GetInsertOrUpdate()
			}
			for _, row := range w.GetValues() {
				var k int64
				fmt.Sscan(row.GetValues()[0].GetStringValue(), &k)
				keys = append(keys, k)
			}
		}
		if muts := int64(len(keys)) * rowMuts; muts > maxMuts {
			t.Errorf("a Commit of %d rows counts %d mutations, more than %d", len(keys), muts, maxMuts)
		}
		if req.GetSingleUseTransaction().GetReadWrite() == nil {
			t.Errorf("a Commit not in a single-use read-write transaction: %v", req.GetTransaction())
		}
		out = append(out, keys)
	}
	return out
}

// TestFakeCopyFromCommitLimits loads narrow rows, wide rows and rows of a
// table with indexes, and checks every Commit against the limits: the
// mutations Spanner counts (columns plus the index columns, per row) and
// the request's bytes, and that the commits are as full as the limits
// allow and hold every row once.
func TestFakeCopyFromCommitLimits(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name             string
		rows, cols, wide int
		indexCols        int64
		opts             []sfdriver.CopyOption
		maxBytes         int64
		wantPerCommit    int // rows of every commit but the last
	}{
		{name: "narrow", rows: 50_000, cols: 5, wide: 8, maxBytes: bulkload.DefaultMaxBytes, wantPerCommit: 16_000},
		{name: "indexed", rows: 20_000, cols: 5, wide: 8, indexCols: 7, maxBytes: bulkload.DefaultMaxBytes, wantPerCommit: 80_000 / 12},
		{name: "upsert-indexed", rows: 20_000, cols: 5, wide: 8, indexCols: 7, opts: []sfdriver.CopyOption{sfdriver.CopyInsertOrUpdate()}, maxBytes: bulkload.DefaultMaxBytes, wantPerCommit: 80_000 / 19},
		{name: "wide", rows: 600, cols: 20, wide: 1000, maxBytes: 2 << 20, opts: []sfdriver.CopyOption{sfdriver.CopyMaxBytes(2 << 20)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakespanner.Start(t)
			answerIndexColumns(s, tc.indexCols)
			db := openFake(t, s)
			s.SetRecording(true)
			n, err := sfdriver.CopyFrom(ctx, db, "T", copyCols(tc.cols), sfdriver.CopyFromRows(copyRows(tc.rows, tc.cols, tc.wide)), tc.opts...)
			if err != nil || n != int64(tc.rows) {
				t.Fatalf("CopyFrom: %d, %v; want %d rows", n, err, tc.rows)
			}
			mode := bulkload.Insert
			if strings.HasPrefix(tc.name, "upsert") {
				mode = bulkload.InsertOrUpdate
			}
			commits := commitRows(t, s, bulkload.RowMutations(mode, tc.cols, tc.indexCols), 80_000, tc.maxBytes)
			// Commits in flight together arrive in any order.
			slices.SortFunc(commits, func(a, b []int64) int { return int(a[0] - b[0]) })
			var all []int64
			for i, keys := range commits {
				if tc.wantPerCommit > 0 && i < len(commits)-1 && len(keys) != tc.wantPerCommit {
					t.Errorf("commit %d has %d rows, want %d (the most the limit allows)", i, len(keys), tc.wantPerCommit)
				}
				all = append(all, keys...)
			}
			if tc.name == "wide" && len(commits) < 3 {
				t.Errorf("%d commits of wide rows: the byte limit did not split them", len(commits))
			}
			slices.Sort(all)
			for i, k := range all {
				if k != int64(i) || len(all) != tc.rows {
					t.Fatalf("the commits hold rows %v..., want each of [0, %d) once", all[:min(len(all), 10)], tc.rows)
				}
			}
		})
	}
}

// TestFakeCopyFromFailureRanges fails the third commit, refused (ALREADY_EXISTS)
// or with an outcome the driver cannot know (the connection broke after
// Spanner committed), and checks that the CopyError names each row's fate
// exactly, keeps the code, and that CopyResume then writes exactly the
// rest.
func TestFakeCopyFromFailureRanges(t *testing.T) {
	ctx := context.Background()
	const rows = 1000
	for _, tc := range []struct {
		name    string
		fault   fakespanner.Fault
		code    codes.Code
		unknown bool
	}{
		{name: "refused", fault: fakespanner.Fault{Skip: 2, Err: status.Error(codes.AlreadyExists, "row exists")}, code: codes.AlreadyExists},
		{name: "unknown", fault: fakespanner.Fault{Skip: 2, AfterRun: true, Err: fakespanner.ErrRSTStream}, code: codes.Internal, unknown: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakespanner.Start(t)
			answerIndexColumns(s, 0)
			db := openFake(t, s)
			s.SetRecording(true)
			s.AddMethodFault("Commit", tc.fault)
			data := copyRows(rows, 5, 4)
			// 100 rows a commit, one in flight.
			opts := []sfdriver.CopyOption{sfdriver.CopyMaxMutations(500), sfdriver.CopyMaxInFlight(1)}
			n, err := sfdriver.CopyFrom(ctx, db, "T", copyCols(5), sfdriver.CopyFromRows(data), opts...)
			var ce *sfdriver.CopyError
			if !errors.As(err, &ce) {
				t.Fatalf("CopyFrom: %d, %v; want a CopyError", n, err)
			}
			if status.Code(err) != tc.code || errors.Is(err, txn.ErrCommitOutcomeUnknown) != tc.unknown {
				t.Errorf("code %v (outcome unknown: %v), want %v (%v): %v", status.Code(err), errors.Is(err, txn.ErrCommitOutcomeUnknown), tc.code, tc.unknown, err)
			}
			// The reader goes on filling the next commit while the third
			// is in flight, and stops when it learns of the failure: by
			// then it has read at most row 400 (the fifth commit waits for
			// the third's place).
			checkAccount(t, ce)
			notFrom, wantUnknown := int64(200), []sfdriver.RowRange(nil)
			if tc.unknown {
				notFrom, wantUnknown = 300, []sfdriver.RowRange{{Start: 200, End: 300}}
			}
			if n != 200 || !slices.Equal(ce.Committed, []sfdriver.RowRange{{Start: 0, End: 200}}) || !slices.Equal(ce.Unknown, wantUnknown) ||
				ce.Read <= 300 || ce.Read > 401 || !slices.Equal(ce.NotCommitted, []sfdriver.RowRange{{Start: notFrom, End: ce.Read}}) {
				t.Fatalf("%d rows; Committed %v, NotCommitted %v, Unknown %v, Read %d; want 200, [0, 200), [%d, Read), %v, Read in (300, 401]: %v",
					n, ce.Committed, ce.NotCommitted, ce.Unknown, ce.Read, notFrom, wantUnknown, err)
			}
			s.ResetRequests()
			n, err = sfdriver.CopyFrom(ctx, db, "T", copyCols(5), sfdriver.CopyFromRows(data), append(opts, sfdriver.CopyResume(err))...)
			if err != nil || n != rows-200 {
				t.Fatalf("resumed CopyFrom: %d, %v; want %d rows", n, err, rows-200)
			}
			var got []int64
			for _, keys := range commitRows(t, s, 5, 500, bulkload.DefaultMaxBytes) {
				got = append(got, keys...)
			}
			if len(got) != rows-200 || got[0] != 200 || got[len(got)-1] != rows-1 {
				t.Fatalf("the resumed load sent %d rows from %d, want rows [200, %d)", len(got), got[0], rows)
			}
		})
	}
}

var bwCols = []string{"Id", "Name"}

func bwGroups() []*spanner.MutationGroup {
	return []*spanner.MutationGroup{
		{Mutations: []*spanner.Mutation{spanner.Insert("T", bwCols, []any{int64(1), "a"}), spanner.InsertOrUpdate("T", bwCols, []any{int64(2), "b"})}},
		{Mutations: []*spanner.Mutation{spanner.Insert("T", bwCols, []any{int64(3), "c"})}},
		{Mutations: []*spanner.Mutation{spanner.Delete("T", spanner.Key{int64(4)})}},
	}
}

// TestFakeBatchWrite sends mutation groups with driver.BatchWrite: the
// request carries the groups as the official client's Client.BatchWrite
// sends them, and each group's status reaches the caller.
func TestFakeBatchWrite(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.SetBatchWriteScript(func(i int, _ *spannerpb.BatchWriteRequest_MutationGroup) (error, error) {
		if i == 1 {
			return status.Error(codes.AlreadyExists, "row 3 exists"), nil
		}
		return nil, nil
	})
	db := openFake(t, s)
	s.SetRecording(true)
	got := map[int32]codes.Code{}
	err := sfdriver.BatchWrite(ctx, db, bwGroups(), func(r *spannerpb.BatchWriteResponse) error {
		for _, i := range r.GetIndexes() {
			got[i] = codes.Code(r.GetStatus().GetCode())
		}
		return nil
	})
	if err != nil || fmt.Sprint(got) != fmt.Sprint(map[int32]codes.Code{0: codes.OK, 1: codes.AlreadyExists, 2: codes.OK}) {
		t.Fatalf("BatchWrite: %v, statuses %v; want OK, ALREADY_EXISTS, OK", err, got)
	}
	ours := s.RequestsFor("BatchWrite")

	s.ResetRequests()
	it := officialClient(t, s).BatchWrite(ctx, bwGroups())
	if err := it.Do(func(*spannerpb.BatchWriteResponse) error { return nil }); err != nil {
		t.Fatalf("the official client's BatchWrite: %v", err)
	}
	theirs := s.RequestsFor("BatchWrite")
	if len(ours) != 1 || len(theirs) != 1 {
		t.Fatalf("%d and %d BatchWrite requests, want one each", len(ours), len(theirs))
	}
	a, b := ours[0].Message.(*spannerpb.BatchWriteRequest), theirs[0].Message.(*spannerpb.BatchWriteRequest)
	if len(a.GetMutationGroups()) != len(b.GetMutationGroups()) {
		t.Fatalf("groups %v, the official client's %v", a.GetMutationGroups(), b.GetMutationGroups())
	}
	for i := range a.GetMutationGroups() {
		if !proto.Equal(a.GetMutationGroups()[i], b.GetMutationGroups()[i]) {
			t.Fatalf("group %d is %v, the official client's %v", i, a.GetMutationGroups()[i], b.GetMutationGroups()[i])
		}
	}
}

// TestFakeCopyFromNonAtomic loads 1,000 rows with BatchWrite in groups of
// 100: group 1 is refused and the stream breaks off before group 7, so
// the error names rows [100, 200) not committed and [700, 1000) of unknown
// outcome, the others committed.
func TestFakeCopyFromNonAtomic(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	answerIndexColumns(s, 0)
	s.SetBatchWriteScript(func(i int, _ *spannerpb.BatchWriteRequest_MutationGroup) (error, error) {
		switch i {
		case 1:
			return status.Error(codes.AlreadyExists, "row exists"), nil
		case 7:
			return nil, fakespanner.ErrRSTStream
		}
		return nil, nil
	})
	db := openFake(t, s)
	n, err := sfdriver.CopyFrom(ctx, db, "T", copyCols(5), sfdriver.CopyFromRows(copyRows(1000, 5, 4)), sfdriver.CopyNonAtomic(100))
	var ce *sfdriver.CopyError
	if !errors.As(err, &ce) || status.Code(err) != codes.AlreadyExists {
		t.Fatalf("CopyFrom: %d, %v; want a CopyError with ALREADY_EXISTS", n, err)
	}
	if n != 600 || fmt.Sprint(ce.Committed) != "[[0, 100) [200, 700)]" || fmt.Sprint(ce.NotCommitted) != "[[100, 200)]" ||
		fmt.Sprint(ce.Unknown) != "[[700, 1000)]" {
		t.Fatalf("%d rows; committed %v, not committed %v, unknown %v: %v", n, ce.Committed, ce.NotCommitted, ce.Unknown, err)
	}
}

// checkAccount fails t unless the error's ranges are disjoint and cover
// rows [0, Read) exactly.
func checkAccount(t *testing.T, ce *sfdriver.CopyError) {
	t.Helper()
	var all []sfdriver.RowRange
	all = append(all, ce.Committed...)
	all = append(all, ce.NotCommitted...)
	all = append(all, ce.Unknown...)
	slices.SortFunc(all, func(a, b sfdriver.RowRange) int { return int(a.Start - b.Start) })
	var next int64
	for _, r := range all {
		if r.Start != next || r.End <= r.Start {
			t.Fatalf("the ranges %v do not cover [0, %d) once each: %v", all, ce.Read, ce)
		}
		next = r.End
	}
	if next != ce.Read {
		t.Fatalf("the ranges %v end at %d, %d rows were read: %v", all, next, ce.Read, ce)
	}
}

// TestFakeCopyFromOutOfOrder runs four commits in flight and refuses the
// sixth to arrive after holding it, so that later commits finish before
// it: the committed ranges are exactly the rows of the commits the server
// accepted, and the refused commit's rows are not among them.
func TestFakeCopyFromOutOfOrder(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	answerIndexColumns(s, 0)
	db := openFake(t, s)
	s.SetRecording(true)
	s.AddMethodFault("Commit", fakespanner.Fault{Skip: 5, Delay: 100 * time.Millisecond, Err: status.Error(codes.AlreadyExists, "row exists")})
	n, err := sfdriver.CopyFrom(ctx, db, "T", copyCols(5), sfdriver.CopyFromRows(copyRows(5000, 5, 4)),
		sfdriver.CopyMaxMutations(500), sfdriver.CopyMaxInFlight(4))
	var ce *sfdriver.CopyError
	if !errors.As(err, &ce) || status.Code(err) != codes.AlreadyExists {
		t.Fatalf("CopyFrom: %d, %v; want a CopyError with ALREADY_EXISTS", n, err)
	}
	checkAccount(t, ce)
	in := func(rs []sfdriver.RowRange, k int64) bool {
		for _, r := range rs {
			if r.Start <= k && k < r.End {
				return true
			}
		}
		return false
	}
	var refused, accepted int
	for _, keys := range commitRows(t, s, 5, 500, bulkload.DefaultMaxBytes) {
		switch {
		case !slices.ContainsFunc(keys, func(k int64) bool { return !in(ce.Committed, k) }):
			accepted += len(keys)
		case !slices.ContainsFunc(keys, func(k int64) bool { return !in(ce.NotCommitted, k) }):
			refused++
		default:
			t.Fatalf("a commit of rows %d..%d is partly in the committed ranges %v: %v", keys[0], keys[len(keys)-1], ce.Committed, err)
		}
	}
	if refused != 1 || int64(accepted) != n || ce.CommittedRows() != n {
		t.Fatalf("%d commits refused, want 1; %d rows accepted, %d reported committed: %v", refused, accepted, n, err)
	}
	// The refused commit is the sixth to arrive, whichever rows it holds:
	// rows after its own must have been committed while it was held.
	if len(ce.Committed) == 0 || len(ce.NotCommitted) == 0 || ce.Committed[len(ce.Committed)-1].End <= ce.NotCommitted[0].Start {
		t.Fatalf("committed %v, not committed %v: the commits after the held one should have finished first", ce.Committed, ce.NotCommitted)
	}
}

// TestFakeCopyFromCancel cancels the load while commits are in flight:
// the error has the context's code and accounts for every row read, the
// commits cut off as of unknown outcome.
func TestFakeCopyFromCancel(t *testing.T) {
	s := fakespanner.Start(t)
	answerIndexColumns(s, 0)
	db := openFake(t, s)
	s.AddMethodFault("Commit", fakespanner.Fault{Skip: 2, Hang: true, Times: -1})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(s.RequestsFor("Commit")) < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	n, err := sfdriver.CopyFrom(ctx, db, "T", copyCols(5), sfdriver.CopyFromRows(copyRows(5000, 5, 4)),
		sfdriver.CopyMaxMutations(500), sfdriver.CopyMaxInFlight(1))
	var ce *sfdriver.CopyError
	if !errors.As(err, &ce) || status.Code(err) != codes.Canceled {
		t.Fatalf("CopyFrom: %d, %v; want a CopyError with CANCELED", n, err)
	}
	checkAccount(t, ce)
	if n != 200 || fmt.Sprint(ce.Committed) != "[[0, 200)]" || fmt.Sprint(ce.Unknown) != "[[200, 300)]" {
		t.Fatalf("%d rows; committed %v, unknown %v; want [0, 200) and the cut-off commit [200, 300) unknown: %v", n, ce.Committed, ce.Unknown, err)
	}
}

// TestFakeCopyFromBadOptions: an option out of range is refused, naming
// it, before anything is sent.
func TestFakeCopyFromBadOptions(t *testing.T) {
	s := fakespanner.Start(t)
	db := openFake(t, s)
	s.SetRecording(true)
	for _, tc := range []struct {
		opt  sfdriver.CopyOption
		name string
	}{
		{sfdriver.CopyMaxInFlight(0), "CopyMaxInFlight"},
		{sfdriver.CopyMaxMutations(80_001), "CopyMaxMutations"},
		{sfdriver.CopyMaxBytes(0), "CopyMaxBytes"},
		{sfdriver.CopyNonAtomic(-1), "CopyNonAtomic"},
		{sfdriver.CopyResume(errors.New("not a load's")), "CopyResume"},
	} {
		_, err := sfdriver.CopyFrom(context.Background(), db, "T", copyCols(2), sfdriver.CopyFromRows(copyRows(1, 2, 1)), tc.opt)
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s out of range: %v; want InvalidArgument naming it", tc.name, err)
		}
	}
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Errorf("%d commits sent", n)
	}
}

// TestFakeCopyFromChannel loads the rows a goroutine sends on a channel.
func TestFakeCopyFromChannel(t *testing.T) {
	s := fakespanner.Start(t)
	answerIndexColumns(s, 0)
	db := openFake(t, s)
	ch := make(chan []any)
	go func() {
		defer close(ch)
		for _, row := range copyRows(3000, 5, 4) {
			ch <- row
		}
	}()
	n, err := sfdriver.CopyFrom(context.Background(), db, "T", copyCols(5), sfdriver.CopyFromChannel(ch), sfdriver.CopyMaxMutations(5000))
	if err != nil || n != 3000 {
		t.Fatalf("CopyFrom of a channel: %d, %v; want 3000 rows", n, err)
	}
}

// TestFakeCopyFromBadValue: a value the client cannot send fails the load
// at its row, naming the table and column, after the rows before it were
// committed; the row and those read with it are not committed.
func TestFakeCopyFromBadValue(t *testing.T) {
	s := fakespanner.Start(t)
	answerIndexColumns(s, 0)
	db := openFake(t, s)
	rows := copyRows(1000, 5, 4)
	rows[250][3] = struct{ X int }{1}
	n, err := sfdriver.CopyFrom(context.Background(), db, "T", copyCols(5), sfdriver.CopyFromRows(rows),
		sfdriver.CopyMaxMutations(500), sfdriver.CopyMaxInFlight(1))
	var ce *sfdriver.CopyError
	if !errors.As(err, &ce) || status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `column "C3"`) {
		t.Fatalf("CopyFrom with a struct value: %d, %v; want a CopyError, InvalidArgument naming column C3", n, err)
	}
	checkAccount(t, ce)
	if ce.Row != 250 || ce.Read != 251 || n != 200 || fmt.Sprint(ce.Committed) != "[[0, 200)]" || fmt.Sprint(ce.NotCommitted) != "[[200, 251)]" {
		t.Fatalf("row %d, read %d, %d committed %v, not committed %v; want row 250, 251 read, [0, 200), [200, 251): %v",
			ce.Row, ce.Read, n, ce.Committed, ce.NotCommitted, err)
	}
}

// TestFakeCopyFromNonAtomicLimits loads with BatchWrite in groups of one
// row, each repeating the table and columns: every request stays under
// the byte limit, and every row is sent once.
func TestFakeCopyFromNonAtomicLimits(t *testing.T) {
	s := fakespanner.Start(t)
	answerIndexColumns(s, 0)
	db := openFake(t, s)
	s.SetRecording(true)
	const maxBytes = 64 << 10
	n, err := sfdriver.CopyFrom(context.Background(), db, "Table_with_a_long_name", copyCols(20), sfdriver.CopyFromRows(copyRows(3000, 20, 1)),
		sfdriver.CopyNonAtomic(1), sfdriver.CopyMaxBytes(maxBytes))
	if err != nil || n != 3000 {
		t.Fatalf("CopyFrom: %d, %v; want 3000 rows", n, err)
	}
	rows := 0
	for _, r := range s.RequestsFor("BatchWrite") {
		req := r.Message.(*spannerpb.BatchWriteRequest)
		if size := proto.Size(req); size > maxBytes {
			t.Errorf("a BatchWrite request of %d bytes, more than %d", size, maxBytes)
		}
		rows += len(req.GetMutationGroups())
	}
	if rows != 3000 {
		t.Fatalf("the requests carry %d groups of one row, want 3000", rows)
	}
}

// TestFakeBulkLoadInvalidUTF8 sends nothing when a CopyFrom's table or
// column name, or a BatchWrite's value, is not valid UTF-8: the error is
// InvalidArgument naming it, where the commit encoder would send the name
// and gRPC would refuse the value with an Internal error naming nothing.
func TestFakeBulkLoadInvalidUTF8(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	answerIndexColumns(s, 0)
	db := openFake(t, s)
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	s.SetRecording(true)
	_, err := sfdriver.CopyFrom(ctx, db, "T", []string{"Id", "Na\xffme"}, sfdriver.CopyFromRows([][]any{{int64(1), "x"}}))
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `"Na\xffme"`) {
		t.Errorf("CopyFrom with an invalid column name: %v; want InvalidArgument naming it", err)
	}
	_, err = sfdriver.CopyFrom(ctx, db, "T\xfe", []string{"Id"}, sfdriver.CopyFromRows([][]any{{int64(1)}}))
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `"T\xfe"`) {
		t.Errorf("CopyFrom with an invalid table name: %v; want InvalidArgument naming it", err)
	}
	groups := []*spanner.MutationGroup{{Mutations: []*spanner.Mutation{
		spanner.Insert("T", []string{"Id", "Name"}, []any{int64(1), "bad\xff"})}}}
	err = sfdriver.BatchWrite(ctx, db, groups, func(*spannerpb.BatchWriteResponse) error { return nil })
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "column Name") {
		t.Errorf("BatchWrite with an invalid value: %v; want InvalidArgument naming column Name", err)
	}
	for _, r := range s.Requests() {
		switch r.Method {
		case "CreateSession", "ExecuteStreamingSql": // the connection's start-up
		default:
			t.Errorf("a %s request was sent; want none", r.Method)
		}
	}
}
