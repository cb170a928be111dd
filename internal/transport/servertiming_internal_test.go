package transport

import (
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TestGFELatencyParse: the gfet4t7 duration of a server-timing header, in
// milliseconds, among other metrics and with or without spaces; nothing
// when the header or the metric is missing or malformed.
func TestGFELatencyParse(t *testing.T) {
	for _, c := range []struct {
		values []string
		want   time.Duration
		ok     bool
	}{
		{[]string{"gfet4t7; dur=12"}, 12 * time.Millisecond, true},
		{[]string{"gfet4t7;dur=0.5"}, 500 * time.Microsecond, true},
		{[]string{"afe; dur=3, gfet4t7; dur=7.25"}, 7250 * time.Microsecond, true},
		{[]string{"afe; dur=3", "gfet4t7; desc=x; dur=4"}, 4 * time.Millisecond, true},
		{nil, 0, false},
		{[]string{"afe; dur=3"}, 0, false},
		{[]string{"gfet4t7"}, 0, false},
		{[]string{"gfet4t7; dur=abc"}, 0, false},
		{[]string{"gfet4t7; dur=-1"}, 0, false},
		{[]string{"xgfet4t7; dur=1"}, 0, false},
	} {
		md := metadata.MD{}
		if c.values != nil {
			md[headerServerTiming] = c.values
		}
		got, ok := gfeLatency(md)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %v %v, want %v %v", c.values, got, ok, c.want, c.ok)
		}
	}
}

// TestRequestIDFormat: an id is the version, the process id in 16 hex
// digits, then the client, channel, request and attempt numbers; a
// context that tracks its call counts the attempts of one request, any
// other context makes a new request.
func TestRequestIDFormat(t *testing.T) {
	var n atomic.Uint32
	ch := newChannelIDs(7, 3, &n, nil)
	if len(processID) != 16 {
		t.Fatalf("process id %q", processID)
	}
	id, req, att := ch.next(t.Context(), nil)
	if want := "1." + processID + ".7.3.1.1"; id != want || req != 1 || att != 1 {
		t.Errorf("first id %q (%d, %d), want %q", id, req, att, want)
	}
	var md MDContext
	md.Context, md.md = t.Context(), t.Context()
	first, _, _ := ch.next(&md, nil)
	second, _, _ := ch.next(&md, nil)
	if want := "1." + processID + ".7.3.2.1"; first != want {
		t.Errorf("stream's first attempt %q, want %q", first, want)
	}
	if want := "1." + processID + ".7.3.2.2"; second != want {
		t.Errorf("stream's second attempt %q, want %q", second, want)
	}
	err := withRequestID(status.Error(codes.Unavailable, "x"), second, 2, 2)
	retry, _, _ := ch.next(RetryContext(t.Context(), err), nil)
	if want := "1." + processID + ".7.3.2.3"; retry != want {
		t.Errorf("retry %q, want %q", retry, want)
	}
	if got := RequestIDOf(err); got != second {
		t.Errorf("RequestIDOf %q, want %q", got, second)
	}
}
