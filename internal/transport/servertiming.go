package transport

import (
	"context"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// observer is what a channel's interceptors do for telemetry besides the
// request id header: the id on the operation's span, trace context for
// end-to-end tracing, and the GFE latency of each attempt when a meter
// listens or the native metrics are exported. Each costs nothing when nobody listens: a check of the
// connector's telemetry (one atomic load and a comparison), no header
// read, no allocation.
type observer struct {
	c        *Client // its telemetry, set before the first call (UseTelemetry)
	endToEnd bool    // enable_end_to_end_tracing
}

// noteRequestID puts id on the span in ctx (the operation's) when it
// records.
func (o *observer) noteRequestID(ctx context.Context, id string) {
	o.c.tel.NoteRequestID(ctx, id)
}

// traceContext returns ctx with the trace context of ctx's span in the
// outgoing metadata, with enable_end_to_end_tracing and a recording span;
// else ctx. Spanner then records its side of the call in the same trace.
func (o *observer) traceContext(ctx context.Context) context.Context {
	if !o.endToEnd {
		return ctx
	}
	if kv := telemetry.TraceHeaders(ctx); len(kv) > 0 {
		return metadata.AppendToOutgoingContext(ctx, kv...)
	}
	return ctx
}

// timing returns the GFE latency capture of one attempt of method, or nil
// when nobody listens to metrics and the native metrics are not exported.
func (o *observer) timing(ctx context.Context, method string) *callTiming {
	g, export := o.c.tel.GFE(), o.c.tel.ExportingGFE()
	if g == nil && !export {
		return nil
	}
	t := &callTiming{gfe: g, ctx: ctx, method: method}
	if export {
		t.export = o.c.tel
	}
	return t
}

// callTiming captures the response headers of one attempt and records
// its GFE latency once: to the application's pipeline (gfe, when it
// listens) and to the export of the native metrics (export, when on).
type callTiming struct {
	gfe    *telemetry.GFE       // nil: the application's pipeline does not listen
	export *telemetry.Telemetry // nil: the native metrics are not exported
	ctx    context.Context
	method string
	header metadata.MD // a unary call's, filled by grpc.Header
	done   bool
}

// unaryDone records a unary attempt that ended with err.
func (t *callTiming) unaryDone(err error) { t.record(t.header, err) }

// record records the attempt whose response headers are header; err is
// how it ended (a unary call) or how its first receive did (a stream:
// the export labels it with that status, the stream's end being unknown
// then).
func (t *callTiming) record(header metadata.MD, err error) {
	if t.done {
		return
	}
	t.done = true
	d, ok := gfeLatency(header)
	if t.gfe != nil {
		t.gfe.Record(t.ctx, rpcName(t.method), d, ok)
	}
	if t.export != nil {
		t.export.ExportGFE(t.ctx, t.method, codeOf(err).String(), d, ok)
	}
}

// timedStream reads the response headers of a stream once its first
// response (or its end) arrived: Header does not block then.
type timedStream struct {
	grpc.ClientStream
	timing *callTiming
}

func (s *timedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if !s.timing.done {
		h, _ := s.ClientStream.Header()
		s.timing.record(h, err)
	}
	return err
}

// Spanner's server-timing response header: "gfet4t7; dur=12.3" among
// other metrics separated by commas, durations in milliseconds.
const (
	headerServerTiming = "server-timing"
	gfeTimingMetric    = "gfet4t7"
)

// gfeLatency returns the gfet4t7 duration of header's server-timing.
func gfeLatency(header metadata.MD) (time.Duration, bool) {
	for _, v := range header.Get(headerServerTiming) {
		for metricText := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(metricText, ";")
			if strings.TrimSpace(name) != gfeTimingMetric {
				continue
			}
			for p := range strings.SplitSeq(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok || k != "dur" {
					continue
				}
				ms, err := strconv.ParseFloat(val, 64)
				if err != nil || ms < 0 {
					return 0, false
				}
				return time.Duration(ms * float64(time.Millisecond)), true
			}
		}
	}
	return 0, false
}

// rpcName is the method's name without its service:
// "/google.spanner.v1.Spanner/Commit" is "Commit".
func rpcName(method string) string {
	return method[strings.LastIndexByte(method, '/')+1:]
}
