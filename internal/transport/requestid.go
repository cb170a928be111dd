package transport

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Request ids: every RPC on the Client's channels carries
// x-goog-spanner-request-id, the id Google support looks a request up by,
// in the official client's format
//
//	1.<process>.<client>.<channel>.<request>.<attempt>
//
// 1 is the format's version; process is a random 64-bit number drawn once
// per process, in 16 hexadecimal digits; client numbers the Clients of one
// database in this process from 1; channel is the channel the attempt is
// sent on, from 1; request numbers the Client's logical requests from 1;
// attempt numbers the attempts of one logical request from 1: a retry, or a
// stream resumed after a transient failure, is the same request with the
// next attempt. Decimal numbers, unpadded.
//
// A channel's interceptors (channelIDs) stamp each call. A call's request
// and attempt come from its context: a streaming query's MDContext counts
// the attempts of its query, RetryContext continues the request of a
// failed unary attempt, and any other call is a new request.

// HeaderRequestID is the request id header.
const HeaderRequestID = "x-goog-spanner-request-id"

// requestIDVersion is the first field of every id: the format's version.
const requestIDVersion = 1

// processID is the random process field, drawn once.
var processID = func() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return fmt.Sprintf("%016x", binary.BigEndian.Uint64(b[:]))
}()

// clientOrdinals numbers the Clients of each database, as the official
// client numbers its clients.
var clientOrdinals = struct {
	mu  sync.Mutex
	ids map[string]uint32
}{ids: map[string]uint32{}}

func nextClientOrdinal(database string) uint32 {
	clientOrdinals.mu.Lock()
	defer clientOrdinals.mu.Unlock()
	clientOrdinals.ids[database]++
	return clientOrdinals.ids[database]
}

// callAttempts is one logical request across its attempts: its number (0
// until its first attempt takes one) and the attempts made so far, with
// the id of the last.
type callAttempts struct {
	request uint32
	attempt uint32
	id      string
}

// callKey is the context key under which a context tracks a callAttempts.
type callKey struct{}

// retryContext is the context of an attempt that retries the request of
// an earlier attempt (RetryContext).
type retryContext struct {
	context.Context
	call callAttempts
}

func (c *retryContext) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return &c.call
	}
	return c.Context.Value(key)
}

// RetryContext returns the context of the next attempt after err, the
// failure of an attempt made with ctx: the RPC made with it carries the
// same request number and the next attempt number. When err carries no
// request id (the attempt never reached a channel) it returns ctx.
func RetryContext(ctx context.Context, err error) context.Context {
	e := requestIDErrorOf(err)
	if e == nil || e.request == 0 {
		return ctx
	}
	return &retryContext{Context: ctx, call: callAttempts{request: e.request, attempt: e.attempt}}
}

// channelIDs stamps the calls of one channel with request ids (and, with
// enable_end_to_end_tracing, trace context; with a meter listening, it
// reads the GFE latency: see servertiming.go). Made once per channel.
type channelIDs struct {
	prefix   string         // "1.<process>.<client>.<channel>."
	requests *atomic.Uint32 // the Client's request counter
	obs      *observer      // end-to-end tracing and GFE latency
}

func newChannelIDs(client, channel uint32, requests *atomic.Uint32, obs *observer) *channelIDs {
	return &channelIDs{
		prefix:   fmt.Sprintf("%d.%s.%d.%d.", requestIDVersion, processID, client, channel),
		requests: requests,
		obs:      obs,
	}
}

// next returns the id of an attempt made with ctx and the numbers in it.
// A caller's own id (the official client, which shares the first channel,
// passes one in a grpc.Header option) is kept.
func (ch *channelIDs) next(ctx context.Context, opts []grpc.CallOption) (id string, request, attempt uint32) {
	for _, o := range opts {
		if h, ok := o.(grpc.HeaderCallOption); ok && h.HeaderAddr != nil {
			if v := h.HeaderAddr.Get(HeaderRequestID); len(v) > 0 && v[0] != "" {
				return v[0], 0, 0
			}
		}
	}
	call, _ := ctx.Value(callKey{}).(*callAttempts)
	if call == nil {
		request, attempt = ch.requests.Add(1), 1
	} else {
		if call.request == 0 {
			call.request = ch.requests.Add(1)
		}
		call.attempt++
		request, attempt = call.request, call.attempt
	}
	// One allocation: the string. The buffer stays on the stack.
	var buf [96]byte
	b := append(buf[:0], ch.prefix...)
	b = strconv.AppendUint(b, uint64(request), 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(attempt), 10)
	id = string(b)
	if call != nil {
		call.id = id
	}
	return id, request, attempt
}

// unary is the channel's unary interceptor.
func (ch *channelIDs) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	id, request, attempt := ch.next(ctx, opts)
	ch.obs.noteRequestID(ctx, id)
	ctx = metadata.AppendToOutgoingContext(ctx, HeaderRequestID, id)
	ctx = ch.obs.traceContext(ctx)
	a := ch.obs.c.meter.attempt(ctx, method, request, attempt, true) // nil when nobody listens
	var err error
	if t := ch.obs.timing(ctx, method); t != nil {
		err = invoker(ctx, method, req, reply, cc, append(slices.Clip(opts), grpc.Header(&t.header))...)
		t.unaryDone(err)
	} else {
		err = invoker(ctx, method, req, reply, cc, opts...)
	}
	a.end(err)
	if err != nil {
		return withRequestID(err, id, request, attempt)
	}
	return nil
}

// stream is the channel's stream interceptor. An error from the stream
// after it opened is given its id by the caller's retry policy
// (Backoff.Final and Backoff.Wait read the id from the context).
func (ch *channelIDs) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	id, request, attempt := ch.next(ctx, opts)
	ch.obs.noteRequestID(ctx, id)
	ctx = metadata.AppendToOutgoingContext(ctx, HeaderRequestID, id)
	ctx = ch.obs.traceContext(ctx)
	a := ch.obs.c.meter.attempt(ctx, method, request, attempt, false) // nil when nobody listens
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		a.end(err)
		return nil, withRequestID(err, id, request, attempt)
	}
	if t := ch.obs.timing(ctx, method); t != nil {
		cs = &timedStream{ClientStream: cs, timing: t}
	}
	return a.stream(cs), nil
}

// lastRequestID returns the id of the last attempt made with ctx when ctx
// tracks its attempts (a streaming query's), else "".
func lastRequestID(ctx context.Context) (id string, request, attempt uint32) {
	if call, _ := ctx.Value(callKey{}).(*callAttempts); call != nil {
		return call.id, call.request, call.attempt
	}
	return "", 0, 0
}
