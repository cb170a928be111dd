package conn

import (
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// internalRetryMessages are the INTERNAL errors that are transport hiccups,
// not query failures, and so may be retried (the official client's list).
var internalRetryMessages = []string{
	"stream terminated by RST_STREAM",
	"HTTP/2 error code: INTERNAL_ERROR",
	"Connection closed with unknown cause",
	"Received unexpected EOS on DATA frame from server",
	"Authentication backend internal server error. Please retry",
}

// retryDelay reports whether err may be retried by resuming the stream, and
// the delay the server asked for (0 if none).
func retryDelay(err error) (retry bool, serverDelay time.Duration) {
	s, ok := status.FromError(err)
	if !ok {
		return false, 0
	}
	delay := serverRetryDelay(s)
	switch s.Code() {
	case codes.Unavailable:
		return true, delay
	case codes.Internal:
		for _, m := range internalRetryMessages {
			if strings.Contains(s.Message(), m) {
				return true, delay
			}
		}
	case codes.ResourceExhausted:
		return delay > 0, delay
	}
	return false, 0
}

func serverRetryDelay(s *status.Status) time.Duration {
	for _, d := range s.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// backoff is exponential from 20 ms, x1.3 per attempt, capped at 32 s.
type backoff struct{ next time.Duration }

const (
	backoffInitial = 20 * time.Millisecond
	backoffMax     = 32 * time.Second
)

func (b *backoff) delay() time.Duration {
	if b.next == 0 {
		b.next = backoffInitial
	}
	d := b.next
	b.next = min(time.Duration(float64(b.next)*1.3), backoffMax)
	return d
}
