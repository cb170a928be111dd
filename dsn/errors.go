package dsn

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error kinds. An *Error unwraps to exactly one of these, so callers can test
// the kind with errors.Is:
//
//	if errors.Is(err, dsn.ErrUnknownProperty) { ... }
var (
	// ErrMalformed: the DSN does not follow the grammar (missing or bad
	// projects/instances/databases part, a property without '=', ...).
	ErrMalformed = errors.New("malformed DSN")
	// ErrUnknownProperty: a key that is not a known property.
	ErrUnknownProperty = errors.New("unknown property")
	// ErrInvalidValue: a known property with a value it does not accept.
	ErrInvalidValue = errors.New("invalid property value")
	// ErrReadOnly: a value for a property that cannot take one here: a
	// read-only property (commit_timestamp, ...) anywhere, or a startup
	// property in SET. errors.Is also reports it as ErrInvalidValue, which
	// it was before it had a kind of its own.
	ErrReadOnly = errors.New("read-only property")
)

// Error describes what is wrong with a DSN or a property value. It carries a
// gRPC status (GRPCStatus), so status.Code works on it: FailedPrecondition
// for ErrReadOnly, InvalidArgument for the other kinds.
type Error struct {
	// Kind is ErrMalformed, ErrUnknownProperty, ErrInvalidValue or
	// ErrReadOnly.
	Kind error
	// Key is the property concerned: the canonical snake_case name for
	// ErrInvalidValue, the key as written for ErrUnknownProperty, and empty
	// for most ErrMalformed errors.
	Key string
	// Value is the offending value as written (ErrInvalidValue) or the
	// offending part of the DSN (ErrMalformed), if any.
	Value string
	// Reason says what is wrong or what is allowed.
	Reason string
	// Suggestion is the closest known property name (ErrUnknownProperty).
	Suggestion string
}

// maxQuoted bounds how much of a value is repeated in an error message.
const maxQuoted = 80

func quote(s string) string {
	if len(s) > maxQuoted {
		// Cut on a rune boundary so %q does not show a broken rune.
		cut := maxQuoted
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
		return fmt.Sprintf("%q...", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// Error returns a one-line description that names the key, the value and
// what is allowed.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("dsn: ")
	switch e.Kind {
	case ErrUnknownProperty:
		b.WriteString("unknown property ")
		b.WriteString(quote(e.Key))
		if e.Suggestion != "" {
			b.WriteString(" (did you mean ")
			b.WriteString(quote(e.Suggestion))
			b.WriteString("?)")
		}
		if e.Reason != "" {
			b.WriteString(": ")
			b.WriteString(e.Reason)
		}
	case ErrInvalidValue, ErrReadOnly:
		b.WriteString("invalid value ")
		b.WriteString(quote(e.Value))
		b.WriteString(" for ")
		b.WriteString(e.Key)
		if e.Reason != "" {
			b.WriteString(": ")
			b.WriteString(e.Reason)
		}
	default:
		b.WriteString("malformed DSN")
		if e.Reason != "" {
			b.WriteString(": ")
			b.WriteString(e.Reason)
		}
	}
	return b.String()
}

// Unwrap returns the error kind.
func (e *Error) Unwrap() error { return e.Kind }

// Is reports ErrReadOnly errors as ErrInvalidValue too.
func (e *Error) Is(target error) bool {
	return e.Kind == ErrReadOnly && target == ErrInvalidValue
}

// GRPCStatus maps the kind to a gRPC code, as go-sql-spanner reports the same
// mistakes: a read-only or startup-only property given a value is
// FailedPrecondition, anything else InvalidArgument.
func (e *Error) GRPCStatus() *status.Status {
	code := codes.InvalidArgument
	if e.Kind == ErrReadOnly {
		code = codes.FailedPrecondition
	}
	return status.New(code, e.Error())
}

func malformed(format string, args ...any) *Error {
	return &Error{Kind: ErrMalformed, Reason: fmt.Sprintf(format, args...)}
}

func invalid(key, value, reason string) *Error {
	return &Error{Kind: ErrInvalidValue, Key: key, Value: value, Reason: reason}
}

func readOnly(key, value, reason string) *Error {
	return &Error{Kind: ErrReadOnly, Key: key, Value: value, Reason: reason}
}

// unknownKey builds the error for an unknown key, suggesting the known
// property whose normalised name is closest in edit distance.
func unknownKey(key string) *Error {
	return &Error{Kind: ErrUnknownProperty, Key: key, Suggestion: closestProperty(key)}
}

// closestProperty returns the canonical name of the property closest to key.
func closestProperty(key string) string {
	n := normKey(key)
	const maxLen = 64 // the names are short; cap the work on huge keys
	if len(n) > maxLen {
		n = n[:maxLen]
	}
	best, bestDist := "", -1
	for i := range properties {
		p := &properties[i]
		d := editDistance(n, p.norm)
		if bestDist < 0 || d < bestDist {
			best, bestDist = p.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
