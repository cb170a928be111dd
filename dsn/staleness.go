package dsn

import (
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// StalenessKind is the kind of timestamp bound of a Staleness.
type StalenessKind int

// Staleness kinds. The zero value is StalenessStrong.
const (
	StalenessStrong StalenessKind = iota
	// StalenessExact reads at exactly Duration in the past.
	StalenessExact
	// StalenessMax reads at most Duration in the past (single-use only).
	StalenessMax
	// StalenessReadTimestamp reads at Timestamp.
	StalenessReadTimestamp
	// StalenessMinReadTimestamp reads at Timestamp or later (single-use
	// only).
	StalenessMinReadTimestamp
)

var stalenessKeywords = [...]string{
	StalenessStrong:           "STRONG",
	StalenessExact:            "EXACT_STALENESS",
	StalenessMax:              "MAX_STALENESS",
	StalenessReadTimestamp:    "READ_TIMESTAMP",
	StalenessMinReadTimestamp: "MIN_READ_TIMESTAMP",
}

// String returns the keyword of the kind (STRONG, EXACT_STALENESS, ...).
func (k StalenessKind) String() string {
	if k >= 0 && int(k) < len(stalenessKeywords) {
		return stalenessKeywords[k]
	}
	return "StalenessKind(" + itoa(int64(k)) + ")"
}

// Staleness is a read_only_staleness value: a timestamp bound for read-only
// transactions and single-use queries. The zero value is a strong read.
// Duration is used by StalenessExact and StalenessMax, Timestamp by
// StalenessReadTimestamp and StalenessMinReadTimestamp; the other field
// stays zero.
type Staleness struct {
	Kind      StalenessKind
	Duration  time.Duration
	Timestamp time.Time
}

// StrongRead returns the strong bound.
func StrongRead() Staleness { return Staleness{} }

// ExactStaleness returns a bound that reads exactly d in the past.
func ExactStaleness(d time.Duration) Staleness { return Staleness{Kind: StalenessExact, Duration: d} }

// MaxStaleness returns a bound that reads at most d in the past.
func MaxStaleness(d time.Duration) Staleness { return Staleness{Kind: StalenessMax, Duration: d} }

// ReadTimestamp returns a bound that reads at t.
func ReadTimestamp(t time.Time) Staleness {
	return Staleness{Kind: StalenessReadTimestamp, Timestamp: t.Round(0).UTC()}
}

// MinReadTimestamp returns a bound that reads at t or later.
func MinReadTimestamp(t time.Time) Staleness {
	return Staleness{Kind: StalenessMinReadTimestamp, Timestamp: t.Round(0).UTC()}
}

// SingleUseOnly reports whether Spanner accepts the bound only for
// single-use transactions (MAX_STALENESS and MIN_READ_TIMESTAMP).
func (s Staleness) SingleUseOnly() bool {
	return s.Kind == StalenessMax || s.Kind == StalenessMinReadTimestamp
}

// String formats s in the grammar ParseStaleness reads: "STRONG",
// "EXACT_STALENESS 10s", "MAX_STALENESS 1500ms", "READ_TIMESTAMP
// 2024-01-02T03:04:05.123Z", "MIN_READ_TIMESTAMP ...". Durations are written
// as one integer and the largest exact unit (s, ms, us, ns); timestamps as
// RFC 3339 in UTC.
func (s Staleness) String() string {
	switch s.Kind {
	case StalenessStrong:
		return "STRONG"
	case StalenessExact, StalenessMax:
		return s.Kind.String() + " " + formatDuration(s.Duration)
	case StalenessReadTimestamp, StalenessMinReadTimestamp:
		return s.Kind.String() + " " + s.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	return s.Kind.String()
}

// normalized returns s with its timestamp in UTC and without a monotonic
// reading, so that == compares instants.
func (s Staleness) normalized() Staleness {
	s.Timestamp = s.Timestamp.Round(0).UTC()
	return s
}

// Equal reports whether s and o are the same bound. Identical values, the
// common case (a connection's bound compared with itself on every query),
// skip normalizing.
func (s Staleness) Equal(o Staleness) bool { return s == o || s.normalized() == o.normalized() }

// ReadOnly returns the read-only transaction options for s. The caller may
// set ReturnReadTimestamp on the result.
func (s Staleness) ReadOnly() *spannerpb.TransactionOptions_ReadOnly {
	ro := &spannerpb.TransactionOptions_ReadOnly{}
	switch s.Kind {
	case StalenessExact:
		ro.TimestampBound = &spannerpb.TransactionOptions_ReadOnly_ExactStaleness{ExactStaleness: durationpb.New(s.Duration)}
	case StalenessMax:
		ro.TimestampBound = &spannerpb.TransactionOptions_ReadOnly_MaxStaleness{MaxStaleness: durationpb.New(s.Duration)}
	case StalenessReadTimestamp:
		ro.TimestampBound = &spannerpb.TransactionOptions_ReadOnly_ReadTimestamp{ReadTimestamp: timestamppb.New(s.Timestamp)}
	case StalenessMinReadTimestamp:
		ro.TimestampBound = &spannerpb.TransactionOptions_ReadOnly_MinReadTimestamp{MinReadTimestamp: timestamppb.New(s.Timestamp)}
	default:
		ro.TimestampBound = &spannerpb.TransactionOptions_ReadOnly_Strong{Strong: true}
	}
	return ro
}

const stalenessGrammar = "want STRONG, EXACT_STALENESS <duration>, MAX_STALENESS <duration>, " +
	"READ_TIMESTAMP <RFC 3339 timestamp> or MIN_READ_TIMESTAMP <RFC 3339 timestamp>"

// ParseStaleness parses a read_only_staleness value. The keyword is
// case-insensitive and separated from its argument by white space; a
// duration is an integer of up to 19 digits and one unit, s, ms, us or ns
// ("10s", "100ms", "5us", "1ns"; not "1m" or "1m30s", which go-sql-spanner
// refuses too); a timestamp is RFC 3339 ("2024-01-02T03:04:05.5Z",
// "2024-01-02T05:04:05+02:00"). The error is an *Error for key
// read_only_staleness.
func ParseStaleness(v string) (Staleness, error) {
	f := strings.Fields(v)
	if len(f) == 0 {
		return Staleness{}, invalid("read_only_staleness", v, stalenessGrammar)
	}
	kind := StalenessKind(-1)
	for k, kw := range stalenessKeywords {
		if strings.EqualFold(f[0], kw) {
			kind = StalenessKind(k)
			break
		}
	}
	switch kind {
	case StalenessStrong:
		if len(f) != 1 {
			return Staleness{}, invalid("read_only_staleness", v, "STRONG takes no argument")
		}
		return Staleness{}, nil
	case StalenessExact, StalenessMax:
		if len(f) != 2 {
			return Staleness{}, invalid("read_only_staleness", v, kind.String()+" takes one duration, e.g. "+kind.String()+" 10s")
		}
		d, ok := parseUnitDuration(f[1])
		if !ok {
			return Staleness{}, invalid("read_only_staleness", v, "bad duration "+quote(f[1])+": want an integer and one unit, s, ms, us or ns, such as 10s or 100ms")
		}
		return Staleness{Kind: kind, Duration: d}, nil
	case StalenessReadTimestamp, StalenessMinReadTimestamp:
		if len(f) != 2 {
			return Staleness{}, invalid("read_only_staleness", v, kind.String()+" takes one RFC 3339 timestamp, e.g. "+kind.String()+" 2024-01-02T03:04:05Z")
		}
		t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(f[1]))
		if err != nil {
			return Staleness{}, invalid("read_only_staleness", v, "bad timestamp "+quote(f[1])+": want RFC 3339, e.g. 2024-01-02T03:04:05.123Z")
		}
		return Staleness{Kind: kind, Timestamp: t.UTC()}, nil
	}
	return Staleness{}, invalid("read_only_staleness", v, stalenessGrammar)
}

// parseUnitDuration reads the duration of a staleness: up to 19 digits and
// one of the units s, ms, us or ns, the only form go-sql-spanner reads there.
func parseUnitDuration(s string) (time.Duration, bool) {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 19 {
		return 0, false
	}
	switch s[i:] {
	case "s", "ms", "us", "ns":
	default:
		return 0, false
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// formatDuration writes d as an integer and the largest unit that divides
// it exactly, which both time.ParseDuration and go-sql-spanner read.
func formatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Second == 0:
		return itoa(int64(d/time.Second)) + "s"
	case d%time.Millisecond == 0:
		return itoa(int64(d/time.Millisecond)) + "ms"
	case d%time.Microsecond == 0:
		return itoa(int64(d/time.Microsecond)) + "us"
	}
	return itoa(int64(d)) + "ns"
}
