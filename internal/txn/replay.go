package txn

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
	"github.com/spannerfast/spannerfast/rows"
)

// Aborted read-write transactions are replayed, as go-sql-spanner does with
// retry_aborts_internally (the default): Spanner may abort a transaction at
// any statement or at commit, and the application would otherwise have to
// run it again itself. The replay begins a new transaction and runs every
// statement again in order. Each must give what it gave the first time: a
// DML statement the same update count and THEN RETURN rows (or the same
// error), a query the same rows for as far as the application read them
// (compared by checksum, see rows.Checksum), and the same end or error where
// the application saw one.
// Any difference means the data changed in between: the transaction then
// fails with ErrAbortedDueToConcurrentModification rather than commit
// decisions made on data that no longer holds.

// replayable is a statement a transaction ran, kept for replay.
type replayable interface {
	// replay runs the statement again in t's new transaction and returns
	// a *dataChangedError if the result differs, or the error that
	// stopped it (ABORTED starts the replay over).
	replay(ctx context.Context, t *Txn) error
}

// dataChangedError says which statement's replay differed, and how. Its
// text quotes the statement (and the errors that differed, which may quote
// it too); ErrorWithoutStatement leaves both out, for telemetry that must
// not carry statement text (internal/telemetry's StatementFree).
type dataChangedError struct {
	sql    string
	detail string // what differed, quoting neither a statement nor an error
	// ended: the statement ended differently, got this time and first the
	// first time (nil: no error, io.EOF: the end of the rows).
	ended      bool
	got, first error
}

var _ telemetry.StatementFree = (*dataChangedError)(nil)

func (e *dataChangedError) Error() string {
	return fmt.Sprintf("%v: replaying %q: %s", ErrAbortedDueToConcurrentModification, e.sql, e.what(true))
}

// ErrorWithoutStatement is the text without the statement, and with the
// gRPC codes of the errors that differed instead of their texts.
func (e *dataChangedError) ErrorWithoutStatement() string {
	return fmt.Sprintf("%v: replaying a statement: %s", ErrAbortedDueToConcurrentModification, e.what(false))
}

func (e *dataChangedError) what(full bool) string {
	if !e.ended {
		return e.detail
	}
	return fmt.Sprintf("%s: %s, first time %s", e.detail, endText(e.got, full), endText(e.first, full))
}

// errAnotherRow is what a replayed query gave where the first run ended.
var errAnotherRow = errors.New("another row")

// endText describes how a statement ended: with its error's text (full) or
// only its code.
func endText(err error, full bool) string {
	switch {
	case err == nil:
		return "no error"
	case err == io.EOF:
		return "the end of the rows"
	case err == errAnotherRow:
		return err.Error()
	case full:
		return err.Error()
	}
	return "error code " + status.Code(err).String()
}

func (e *dataChangedError) Is(target error) bool {
	return target == ErrAbortedDueToConcurrentModification
}

func (e *dataChangedError) GRPCStatus() *status.Status { return status.New(codes.Aborted, e.Error()) }

// withAbortReplay runs a statement (or the commit) and, when Spanner aborts
// the transaction and replays are on, replays it and runs f again.
// A replay that saw different data ends the transaction: every later
// statement and the commit return that error. An abort that goes back to
// the caller (replays off, or too many) is reported here, one that is
// replayed by replayAfter. The reports go on the transaction's span (the
// statement's context, which database/sql gives, does not carry it).
func (t *Txn) withAbortReplay(ctx context.Context, f func() error) error {
	if t.failed != nil {
		return t.failed
	}
	err := f()
	if IsAborted(err) {
		ctx = t.traced(ctx)
	}
	for n := 0; IsAborted(err) && !errors.Is(err, ErrAbortedDueToConcurrentModification); n++ {
		if !t.Options.RetryAborts || n >= MaxAbortReplays {
			t.reportAbort(ctx, err, 0, telemetry.AbortReturn)
			return err
		}
		if err = t.replayAfter(ctx, err); err != nil {
			if errors.Is(err, ErrAbortedDueToConcurrentModification) {
				t.failed = err
			}
			return err
		}
		err = f()
	}
	return err
}

// replayAfter waits the delay Spanner asked for (or a backoff), then
// begins a new transaction and replays the log, starting over when the
// replay itself is aborted.
func (t *Txn) replayAfter(ctx context.Context, cause error) error {
	var bo transport.Backoff
	for n := 0; ; n++ {
		d := bo.Delay(abortDelay(cause))
		t.reportAbort(ctx, cause, d, telemetry.AbortReplay)
		if err := transport.Sleep(ctx, d); err != nil {
			return cause
		}
		t.Restart()
		// The replay begins with BeginTransaction, so that its first
		// statement runs in a transaction already begun, as the official
		// client's statement-based transactions retry.
		t.Options.Explicit = true
		err := t.replayReported(ctx, n+1)
		if !IsAborted(err) || errors.Is(err, ErrAbortedDueToConcurrentModification) || n >= MaxAbortReplays {
			return err
		}
		cause = err
	}
}

// reportAbort reports an abort of the transaction (its number counts the
// transaction's aborts), followed by action after delay.
func (t *Txn) reportAbort(ctx context.Context, err error, delay time.Duration, action string) {
	t.aborts++
	tel := t.host.Telemetry()
	if !tel.Reporting(ctx, telemetry.LevelAbort) {
		return
	}
	code := status.Code(err)
	tel.Aborted(ctx, telemetry.Failure{Attempt: t.aborts, Code: uint32(code), CodeName: code.String(), Delay: delay}, action)
}

// replayReported runs the replay numbered attempt (from 1, for one abort)
// and reports its start and its outcome.
func (t *Txn) replayReported(ctx context.Context, attempt int) error {
	tel := t.host.Telemetry()
	r := telemetry.Replay{Attempt: attempt, Statements: len(t.log), Outcome: telemetry.ReplayStarted}
	tel.Replayed(ctx, r)
	err := t.replay(ctx)
	switch {
	case err == nil:
		r.Outcome = telemetry.ReplaySucceeded
	case errors.Is(err, ErrAbortedDueToConcurrentModification):
		r.Outcome, r.Err = telemetry.ReplayDataChanged, err
	case IsAborted(err):
		r.Outcome, r.Err = telemetry.ReplayAborted, err
	default:
		r.Outcome, r.Err = telemetry.ReplayFailed, err
	}
	tel.Replayed(ctx, r)
	return err
}

// Restart forgets the aborted transaction; the next statement begins a new
// one. Buffered mutations stay: they go with the new transaction's commit.
func (t *Txn) Restart() {
	if t.id != nil && !t.readOnly {
		t.carryPrevious(t.id)
	}
	t.id = nil
	t.precommit = nil
	t.beginFailed = false
}

// carryPrevious names the aborted transaction id in the options the next
// one begins with (multiplexed_session_previous_transaction_id), so that
// Spanner gives the retry the aborted one's lock priority, as the official
// client does. The options are copied: requests already built keep theirs.
func (t *Txn) carryPrevious(id []byte) {
	if t.Options.Begin.GetReadWrite() == nil {
		return
	}
	opts := proto.Clone(t.Options.Begin).(*spannerpb.TransactionOptions)
	opts.GetReadWrite().MultiplexedSessionPreviousTransactionId = id
	t.Options.Begin = opts
}

// errBeginFailed is the error of a transaction without replays whose first
// statement failed before the transaction began (code ABORTED, so that
// RunTransaction runs the function again).
var errBeginFailed = status.Error(codes.Aborted,
	"spannerfast: the transaction's first statement failed before the transaction began and retry_aborts_internally is off; run the transaction again")

// beginAfterFailure begins with BeginTransaction a read-write transaction
// whose first statement failed before the server returned its id (Txn.run).
// The error the application saw of that statement came from no
// transaction: with replays on, the log (that statement) runs again in the
// new transaction and must fail the same way, as after an abort; without
// them the transaction ends with errBeginFailed. go-sql-spanner does the
// same, through the official client's failed-inline-begin abort.
func (t *Txn) beginAfterFailure(ctx context.Context) error {
	t.beginFailed = false
	if !t.Options.RetryAborts {
		t.failed = errBeginFailed
		return t.failed
	}
	if err := t.begin(ctx, nil); err != nil {
		return err
	}
	if err := t.replayReported(ctx, 1); err != nil {
		if errors.Is(err, ErrAbortedDueToConcurrentModification) {
			t.failed = err
		}
		return err
	}
	return nil
}

func (t *Txn) replay(ctx context.Context) error {
	t.retrying = true
	defer func() { t.retrying = false }()
	for _, r := range t.log {
		if err := r.replay(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// record logs a statement for replay (not while replaying: the log already
// has it).
func (t *Txn) record(r replayable) {
	if !t.readOnly && t.Options.RetryAborts && !t.retrying {
		t.log = append(t.log, r)
	}
}

// sameError reports whether a replayed statement failed as the original
// did: same code and message.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	sa, sb := status.Convert(a), status.Convert(b)
	return sa.Code() == sb.Code() && sa.Message() == sb.Message()
}

// dmlRecord is a DML statement (or batch) and what it returned.
type dmlRecord struct {
	stmt     *DML
	counts   []int64               // one per statement
	returned []*structpb.ListValue // the THEN RETURN rows of one statement (LastInsertId)
	err      error
}

func (r *dmlRecord) replay(ctx context.Context, t *Txn) error {
	counts, rs, err := t.RunDML(ctx, r.stmt)
	if IsAborted(err) {
		return err
	}
	if !sameError(err, r.err) {
		return &dataChangedError{sql: r.stmt.describe(), detail: "error", ended: true, got: err, first: r.err}
	}
	if !reflect.DeepEqual(counts, r.counts) {
		return &dataChangedError{sql: r.stmt.describe(), detail: fmt.Sprintf("update counts %v, first time %v", counts, r.counts)}
	}
	// What THEN RETURN gave (through ExecContext: LastInsertId) was seen by
	// the application, which may have used it (an id from a sequence, say):
	// a replay that returns anything else is different data.
	if !sameRows(rs.GetRows(), r.returned) {
		return &dataChangedError{sql: r.stmt.describe(), detail: "the rows THEN RETURN gave differ (LastInsertId)"}
	}
	return nil
}

// sameRows reports whether two results' rows are equal value for value.
func sameRows(a, b []*structpb.ListValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !proto.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Rows are the rows of a query in a read-write transaction. They count
// and checksum what the application reads; if Spanner aborts the
// transaction while they are being read, the replay reopens the query,
// reads as far as these rows got, and carries on from there with the new
// stream.
type Rows struct {
	inner   *rows.Rows
	sum     *rows.Checksum
	t       *Txn
	q       *query
	end     error // io.EOF or the error that ended the rows, once one did
	errs    rows.ErrorHook
	endOut  error // what Next returns for end (errs applied)
	closed  bool
	cut     error // the query's context or deadline had ended at a replay
	cutOut  error // what Next returns for cut (errs applied, at the first Next)
	scratch []driver.Value
}

var (
	_ driver.Rows                           = (*Rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*Rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*Rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*Rows)(nil)
	_ rows.Encoded                          = (*Rows)(nil)
)

// EncodedMetadata and EncodedStats are the query's, for
// go-sql-spanner's metadata and statistics result sets.
func (r *Rows) EncodedMetadata() ([]byte, bool) { return r.inner.Metadata(), true }
func (r *Rows) EncodedStats() ([]byte, bool)    { return r.inner.Stats(), true }

func (r *Rows) Columns() []string { return r.inner.Columns() }

func (r *Rows) ColumnTypeScanType(i int) reflect.Type { return r.inner.ColumnTypeScanType(i) }

func (r *Rows) ColumnTypeDatabaseTypeName(i int) string {
	return r.inner.ColumnTypeDatabaseTypeName(i)
}

func (r *Rows) ColumnTypeNullable(i int) (bool, bool) { return r.inner.ColumnTypeNullable(i) }

func (r *Rows) Next(dest []driver.Value) error {
	if r.end != nil {
		return r.endOut
	}
	if r.cut != nil {
		if r.cutOut == nil {
			r.cutOut = rows.Hooked(r.errs, r.cut)
		}
		return r.cutOut
	}
	err := r.t.withAbortReplay(r.q.ctx, func() error { return r.inner.Next(dest) })
	if err != nil {
		// end stays as the stream gave it: a replay compares with it.
		r.end, r.endOut = err, err
		if err != io.EOF {
			r.endOut = rows.Hooked(r.errs, err)
		}
	}
	return r.endOut
}

func (r *Rows) Close() error {
	r.closed = true
	return r.inner.Close()
}

// replay reruns the query and reads as many rows as the application did,
// comparing checksums; open rows continue on the new stream.
//
// The new stream of open rows is the query's: opened with the query's own
// context and deadline, not with ctx, which is that of the statement whose
// abort started the replay (an UPDATE, say) and which may end as soon as
// that statement returns. Rows already ended or closed are only checked,
// within the replay's ctx and a deadline from now. Open rows whose context
// or deadline ended meanwhile are checked the same way and end with that
// error (the stream they had would have).
func (r *Rows) replay(ctx context.Context, t *Txn) error {
	d := t.host.StreamDeadline()
	if r.end == nil && !r.closed {
		if r.cut = r.q.expired(); r.cut == nil {
			ctx, d = r.q.ctx, r.q.deadline
		} else {
			r.closed = true
			r.inner.Close()
		}
	}
	fresh, sum, err := t.openQuery(ctx, r.q, d)
	if IsAborted(err) {
		return err
	}
	if err != nil {
		if r.sum.Rows() == 0 && sameError(err, r.end) {
			return nil // it failed the same way at the start
		}
		return &dataChangedError{sql: r.q.req.GetSql(), detail: "error at the start", ended: true, got: err, first: r.end}
	}
	if len(r.scratch) < len(fresh.Columns()) {
		r.scratch = make([]driver.Value, len(fresh.Columns()))
	}
	want := r.sum.Rows()
	for sum.Rows() < want {
		if err := fresh.Next(r.scratch); err != nil {
			fresh.Close()
			if IsAborted(err) {
				return err
			}
			return &dataChangedError{sql: r.q.req.GetSql(), detail: fmt.Sprintf("%d rows, first time more", sum.Rows())}
		}
	}
	if sum.Sum() != r.sum.Sum() {
		fresh.Close()
		return &dataChangedError{sql: r.q.req.GetSql(), detail: fmt.Sprintf("the first %d rows differ", want)}
	}
	if r.end != nil {
		// The first run ended here (io.EOF or an error): so must this one.
		err := fresh.Next(r.scratch)
		fresh.Close()
		if IsAborted(err) {
			return err
		}
		if err != r.end && !sameError(err, r.end) {
			if err == nil {
				err = errAnotherRow
			}
			return &dataChangedError{sql: r.q.req.GetSql(), detail: fmt.Sprintf("after %d rows", want), ended: true, got: err, first: r.end}
		}
		return nil
	}
	if r.closed {
		fresh.Close()
		return nil
	}
	r.inner.Close()
	r.inner, r.sum = fresh, sum
	return nil
}

// expired returns the error of a query whose own context or deadline has
// ended (the error its stream would give), nil while it may still read.
func (q *query) expired() error {
	if err := q.ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	if q.deadline.Set && !time.Now().Before(q.deadline.At) {
		return status.FromContextError(context.DeadlineExceeded).Err()
	}
	return nil
}
