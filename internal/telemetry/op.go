package telemetry

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Op is one operation in progress: its span (when tracing) and its start
// time (when measuring). The zero Op, which Start returns when nobody
// listens, does nothing. An Op is a value: keep it where the operation
// lives and End it once.
type Op struct {
	t     *Telemetry
	span  trace.Span // nil: not tracing
	meter *meterState
	ctx   context.Context // with span, when measuring too: the duration's exemplar links to the span
	start time.Time
	kind  Kind
	rows  int64 // db.response.returned_rows, when returnedRows
	has   flags
}

type flags uint8

const (
	returnedRows flags = 1 << iota
	ended
)

// Start starts an operation of kind k: a span, child of the span in ctx,
// and the clock of its duration. query is the statement's text (db.query.text
// unless the connector omits it; "" for none). When nobody listens Start
// returns ctx and the zero Op without allocating.
func (t *Telemetry) Start(ctx context.Context, k Kind, query string) (context.Context, Op) {
	tr := t.tracer()
	m := t.meter()
	if tr == nil && m == nil {
		return ctx, Op{}
	}
	if k == Query && ctx.Value(statementKey{}) != nil {
		return ctx, Op{} // the statement's operation is open already
	}
	op := Op{t: t, meter: m, kind: k}
	if tr != nil {
		ctx, op.span = tr.Start(ctx, k.SpanName(), clientSpan...)
		if op.span.IsRecording() {
			// One call with every attribute known now: the SDK grows its
			// attribute slice once.
			attrs := t.spanAttrs[k]
			if query != "" && t.QueryText() {
				attrs = append(attrs, KeyDBQueryText.String(query)) // a copy: spanAttrs[k] is full
			}
			op.span.SetAttributes(attrs...)
		}
		if m != nil {
			op.ctx = ctx
		}
	}
	if m != nil {
		op.start = time.Now()
	}
	return ctx, op
}

// clientSpan is the options of every span, made once (a variadic argument
// of an interface method is allocated at each call).
var clientSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// newSpanAttrs returns, per kind, the attributes a span of that kind
// starts with: the base ones and db.operation.name. Each slice is full
// (len == cap), so appending to it copies.
func newSpanAttrs(base []attribute.KeyValue) (out [kinds][]attribute.KeyValue) {
	n := len(base) + 1
	all := make([]attribute.KeyValue, 0, n*int(kinds))
	for k := range kinds {
		from := len(all)
		all = append(all, base...)
		all = append(all, operationNames[k])
		out[k] = all[from : from+n : from+n]
	}
	return out
}

// operationOpts are the options of a successful operation of kind k's
// measurements: the base attributes and db.operation.name.
func (t *Telemetry) operationOpts(k Kind) *measureOpts {
	return t.opts(setKey{family: famOperation, n: int64(k)}, operationNames[k])
}

// Tags are a request's tags: *spannerpb.RequestOptions, nil included.
type Tags interface {
	GetRequestTag() string
	GetTransactionTag() string
}

// StartStatement is Start for a statement sent with tags (nil: none),
// which its span records.
func (t *Telemetry) StartStatement(ctx context.Context, k Kind, text string, tags Tags) (context.Context, Op) {
	ctx, op := t.Start(ctx, k, text)
	if op.Recording() && tags != nil {
		op.SetTags(tags.GetRequestTag(), tags.GetTransactionTag())
	}
	return ctx, op
}

// statementKey marks a context in which the statement's operation is open
// already (partitioned DML's PartitionedUpdate): the query that runs the
// statement starts no Query operation of its own, so what happens to its
// stream (resumptions, its request id) is reported on the statement's span.
type statementKey struct{}

// StartPartitionedUpdate is StartStatement for partitioned DML: one
// PartitionedUpdate operation from its first BeginTransaction to its last
// row count, the runs after aborts included (as the official client's
// span); the streaming query that runs it inside the returned context is
// no Query operation.
func (t *Telemetry) StartPartitionedUpdate(ctx context.Context, text string, tags Tags) (context.Context, Op) {
	ctx, op := t.StartStatement(ctx, PartitionedUpdate, text, tags)
	if op.Active() {
		ctx = context.WithValue(ctx, statementKey{}, true)
	}
	return ctx, op
}

// StartBatch is Start for statements sent as one (DDL): their number and,
// unless the connector omits query text, their texts (see SetBatch).
func (t *Telemetry) StartBatch(ctx context.Context, k Kind, texts []string) (context.Context, Op) {
	ctx, op := t.Start(ctx, k, "")
	op.SetBatch(len(texts), func(i int) string { return texts[i] })
	return ctx, op
}

// Active reports whether anyone listens to op: callers build attributes
// only when it is true.
func (op *Op) Active() bool { return op.t != nil }

// Recording reports whether op's span records attributes and events.
func (op *Op) Recording() bool { return op.span != nil && op.span.IsRecording() }

// Span returns op's span (a non-recording one when not tracing).
func (op *Op) Span() trace.Span {
	if op.span == nil {
		return trace.SpanFromContext(context.Background())
	}
	return op.span
}

// Context returns ctx with op's span in it, so that operations started
// with it are op's children (a transaction's statements: database/sql
// gives them a context that does not carry the transaction's span). It is
// ctx itself when op has no span.
func (op *Op) Context(ctx context.Context) context.Context {
	if op.span == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, op.span)
}

// SetAttributes adds attrs to op's span. Build them only when Recording.
func (op *Op) SetAttributes(attrs ...attribute.KeyValue) {
	if op.Recording() {
		op.span.SetAttributes(append([]attribute.KeyValue(nil), attrs...)...) // a copy: the caller's slice stays on its stack
	}
}

// AddRows counts n more rows returned (db.response.returned_rows, set at
// End).
func (op *Op) AddRows(n int64) {
	if op.t != nil {
		op.rows += n
		op.has |= returnedRows
	}
}

// SetKind changes what op is (a transaction found read-only after all): its
// span's name and its db.operation.name.
func (op *Op) SetKind(k Kind) {
	if op.t == nil || op.kind == k {
		return
	}
	op.kind = k
	if op.span != nil {
		op.span.SetName(k.SpanName())
		if op.span.IsRecording() {
			op.span.SetAttributes(operationNames[k])
		}
	}
}

// SetTags records a request's tags (spanner.request_tag,
// spanner.transaction_tag); empty ones are left out.
func (op *Op) SetTags(request, transaction string) {
	if !op.Recording() {
		return
	}
	if request != "" {
		op.span.SetAttributes(KeyRequestTag.String(request))
	}
	if transaction != "" {
		op.span.SetAttributes(KeyTransactionTag.String(transaction))
	}
}

// SetBatch records a batch of n statements: db.operation.batch.size and,
// unless the connector omits query text, the texts (text(i) for each)
// joined with "; " as db.query.text. text is called only when recording.
func (op *Op) SetBatch(n int, text func(i int) string) {
	if !op.Recording() {
		return
	}
	op.span.SetAttributes(KeyDBBatchSize.Int(n))
	if op.t.QueryText() && n > 0 {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(text(i))
		}
		op.span.SetAttributes(KeyDBQueryText.String(b.String()))
	}
}

// EndErr is End(*err), for a deferred call that sees the function's final
// error.
func (op *Op) EndErr(err *error) { op.End(*err) }

// Event adds an event named name to op's span.
func (op *Op) Event(name string, attrs ...attribute.KeyValue) {
	if op.Recording() {
		addEvent(op.span, name, attrs)
	}
}

// End ends op: err nil is success; otherwise the span gets status Error,
// the error recorded (with the text errorText gives) and its gRPC code,
// and the duration is recorded with the same status. A second End does
// nothing.
func (op *Op) End(err error) {
	if op.t == nil || op.has&ended != 0 {
		return
	}
	op.has |= ended
	var code attribute.KeyValue // db.response.status_code
	var errType attribute.KeyValue
	var rpcCode int64 = -1
	if err != nil {
		errType = KeyErrorType.String("_OTHER")
		if f := op.t.cfg.ErrorCode; f != nil {
			if n, name, ok := f(err); ok {
				errType, code, rpcCode = KeyErrorType.String(name), KeyDBStatusCode.String(name), n
			}
		}
	}
	if op.span != nil {
		if op.span.IsRecording() {
			if op.has&returnedRows != 0 {
				op.span.SetAttributes(KeyDBReturnedRows.Int64(op.rows))
			}
			if err != nil {
				op.span.SetAttributes(errType)
				if rpcCode >= 0 {
					op.span.SetAttributes(code, KeyRPCGRPCStatus.Int64(rpcCode))
				}
				op.t.recordError(op.span, err)
			}
		}
		op.span.End()
	}
	if op.meter != nil {
		ctx := op.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		d := time.Since(op.start).Seconds()
		if err == nil {
			op.meter.duration.Record(ctx, d, op.t.operationOpts(op.kind).rec...)
			return
		}
		attrs := make([]attribute.KeyValue, 0, len(op.t.base)+3)
		attrs = append(attrs, op.t.base...)
		attrs = append(attrs, operationNames[op.kind], errType)
		if rpcCode >= 0 {
			attrs = append(attrs, code)
		}
		op.meter.duration.Record(ctx, d, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	}
}

// Event adds an event to the span in ctx; it costs nothing when that span
// does not record (or there is none).
func Event(ctx context.Context, name string, attrs ...attribute.KeyValue) {
	if s := trace.SpanFromContext(ctx); s.IsRecording() {
		addEvent(s, name, attrs)
	}
}

// Recording reports whether the span in ctx records: callers that would
// build something for an event ask first.
func Recording(ctx context.Context) bool { return trace.SpanFromContext(ctx).IsRecording() }

// addEvent gives s a copy of attrs, so that the callers' argument slices
// do not escape to the heap.
func addEvent(s trace.Span, name string, attrs []attribute.KeyValue) {
	s.AddEvent(name, trace.WithAttributes(append([]attribute.KeyValue(nil), attrs...)...))
}
