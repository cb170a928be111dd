package dsn

import (
	"math"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protojson"
)

// What a property is and the kinds of values properties take: how text
// becomes a Config field and back, with the range and enum checks every
// property of a kind shares. The declarations themselves are in
// properties.go.

type propKind int

const (
	kindString propKind = iota
	kindBool
	kindInt
	kindDuration
	kindEnum
	kindReadOnly
)

// property describes one DSN key: how to set it from text and how to write
// it back. get returns the canonical text of the field; set parses text into
// the field and returns an *Error naming the property when the text is not
// allowed. The table order is the order FormatDSN writes keys in.
type property struct {
	name string // canonical snake_case key
	norm string // name lower-cased without underscores
	kind propKind
	set  func(c *Config, v string) *Error
	get  func(c *Config) string // nil for read-only properties
	// show returns the typed value SHOW VARIABLE answers with, as
	// go-sql-spanner types it; nil means the text of get.
	show func(c *Config) any
	// startup properties are fixed when the connector is made; SET cannot
	// change them on a connection.
	startup bool
	// secret values are replaced by Redacted in String, fmt and errors.
	secret bool

	// typ is the value's type as the reference writes it; desc says in one
	// line what the property does (both for Declarations and the
	// generated docs/properties.md).
	typ, desc string
	// txnRW and txnRO mark an option of a read-write or a read-only
	// transaction: the open transaction takes it when its first statement
	// runs (package conn).
	txnRW, txnRO bool
	// pg marks a PostgreSQL setting (postgresql.go): known only on a
	// PostgreSQL-dialect database, and not in a DSN.
	pg bool
}

// doc sets the one-line description of the property.
func (p property) doc(desc string) property {
	p.desc = desc
	return p
}

// typed overrides the type text the constructor gave the property.
func (p property) typed(t string) property {
	p.typ = t
	return p
}

// txnOption marks the property as an option of read-write (rw) and/or
// read-only (ro) transactions.
func (p property) txnOption(rw, ro bool) property {
	p.txnRW, p.txnRO = rw, ro
	return p
}

func startup(p property) property {
	p.startup = true
	return p
}

func secret(p property) property {
	p.secret = true
	return p
}

// shown sets how SHOW VARIABLE types the property's value.
func shown(p property, show func(c *Config) any) property {
	p.show = show
	return p
}

// quotable returns v, or Redacted for a secret property, for error texts.
func (p *property) quotable(v string) string {
	if p.secret && v != "" {
		return Redacted
	}
	return v
}

// IsStartupProperty reports whether key (any spelling) names a startup
// property: one that configures the connector (channels, credentials,
// session) and so cannot be changed on a single connection with SET.
// Unknown keys report false.
func IsStartupProperty(key string) bool {
	p := lookup(key)
	return p != nil && p.startup
}

// normKey folds the spellings of a key together: usePlainText,
// use_plain_text and USEPLAINTEXT all become "useplaintext".
func normKey(k string) string {
	var b strings.Builder
	b.Grow(len(k))
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// rangeText is the type text of an integer property accepting lo..hi; a
// bound at the type's (or int32's) limit is not written.
func rangeText(typ string, lo, hi int64) string {
	switch {
	case lo == math.MinInt64:
		return typ
	case hi >= math.MaxInt32:
		return typ + " ≥ " + itoa(lo)
	}
	return typ + " " + itoa(lo) + ".." + itoa(hi)
}

func stringProp(name string, f func(*Config) *string) property {
	return property{name: name, kind: kindString, typ: "string",
		set: func(c *Config, v string) *Error { *f(c) = v; return nil },
		get: func(c *Config) string { return *f(c) },
	}
}

// sequenceKindProp is default_sequence_kind: a sequence kind such as
// bit_reversed_positive, or "" (off). The value goes into an ALTER DATABASE
// statement, so only letters, digits and underscores are accepted.
func sequenceKindProp() property {
	p := stringProp("default_sequence_kind", func(c *Config) *string { return &c.DefaultSequenceKind }).typed("sequence kind")
	set := p.set
	p.set = func(c *Config, v string) *Error {
		v = strings.TrimSpace(v)
		for _, r := range v {
			if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				return invalid("default_sequence_kind", v, "want a sequence kind such as bit_reversed_positive (letters, digits and underscores)")
			}
		}
		return set(c, v)
	}
	return p
}

func boolProp(name string, f func(*Config) *bool) property {
	return property{name: name, kind: kindBool, typ: "bool",
		set: func(c *Config, v string) *Error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return invalid(name, v, withAmpHint(v, "want true or false"))
			}
			*f(c) = b
			return nil
		},
		get:  func(c *Config) string { return strconv.FormatBool(*f(c)) },
		show: func(c *Config) any { return *f(c) },
	}
}

// intProp accepts lo..hi; when zeroDefault is non-zero, 0 stands for it
// (go-sql-spanner uses 0 for "the default" on these keys).
func intProp(name string, f func(*Config) *int, lo, hi, zeroDefault int) property {
	return property{name: name, kind: kindInt, typ: rangeText("int", int64(lo), int64(hi)),
		set: func(c *Config, v string) *Error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if zeroDefault != 0 && err == nil && n == 0 {
				n = int64(zeroDefault)
			}
			if err != nil || n < int64(lo) || n > int64(hi) {
				r := "want an integer from " + itoa(int64(lo)) + " to " + itoa(int64(hi))
				if zeroDefault != 0 {
					r += " (0 means the default, " + itoa(int64(zeroDefault)) + ")"
				}
				return invalid(name, v, withAmpHint(v, r))
			}
			*f(c) = int(n)
			return nil
		},
		get: func(c *Config) string { return itoa(int64(*f(c))) },
	}
}

// bytesProp reads a byte count, optionally with a KiB, MiB or GiB suffix.
func bytesProp(name string, f func(*Config) *int64, lo int64) property {
	return property{name: name, kind: kindInt, typ: "bytes (KiB, MiB or GiB suffix allowed)",
		set: func(c *Config, v string) *Error {
			s := strings.TrimSpace(v)
			mul := int64(1)
			for _, u := range []struct {
				suffix string
				mul    int64
			}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
				if len(s) > len(u.suffix) && strings.EqualFold(s[len(s)-len(u.suffix):], u.suffix) {
					s, mul = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mul
					break
				}
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < lo || n > math.MaxInt64/mul {
				return invalid(name, v, withAmpHint(v, "want a byte count of at least "+itoa(lo)+", optionally with a KiB, MiB or GiB suffix"))
			}
			*f(c) = n * mul
			return nil
		},
		get:  func(c *Config) string { return itoa(*f(c)) },
		show: func(c *Config) any { return *f(c) },
	}
}

// int64Prop accepts lo..hi and shows as an INT64, as go-sql-spanner's int64
// properties do (its int ones show as text).
func int64Prop(name string, f func(*Config) *int64, lo, hi int64) property {
	return property{name: name, kind: kindInt, typ: rangeText("int64", lo, hi),
		set: func(c *Config, v string) *Error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < lo || n > hi {
				return invalid(name, v, withAmpHint(v, "want an integer from "+itoa(lo)+" to "+itoa(hi)))
			}
			*f(c) = n
			return nil
		},
		get:  func(c *Config) string { return itoa(*f(c)) },
		show: func(c *Config) any { return *f(c) },
	}
}

// durationProp reads a non-negative duration up to hi (0: no upper bound):
// Go syntax ("10s", "100ms", "5us", "1ns", "1m30s"), a bare integer meaning
// milliseconds, or NULL meaning 0, as go-sql-spanner does.
func durationProp(name string, f func(*Config) *time.Duration, hi time.Duration) property {
	return property{name: name, kind: kindDuration, typ: "duration",
		set: func(c *Config, v string) *Error {
			d, ok := parseDuration(v)
			if !ok || d < 0 || (hi > 0 && d > hi) {
				r := "want a non-negative duration such as 10s, 100ms, 5us or 1ns (a bare integer means milliseconds)"
				if hi > 0 {
					r = "want a duration from 0 to " + formatDuration(hi) + " such as 10ms (a bare integer means milliseconds)"
				}
				return invalid(name, v, withAmpHint(v, r))
			}
			*f(c) = d
			return nil
		},
		get: func(c *Config) string { return formatDuration(*f(c)) },
		// go-sql-spanner shows a duration as Go's time.Duration text.
		show: func(c *Config) any { return f(c).String() },
	}
}

// maxCommitDelayProp is max_commit_delay: a duration as durationProp reads
// it, with no upper bound (Spanner refuses more than 500ms at commit, as it
// does for go-sql-spanner), where "" and NULL mean not set. SHOW answers ""
// when it is not set and "0s" when it was set to 0, as go-sql-spanner does.
func maxCommitDelayProp() property {
	return property{name: "max_commit_delay", kind: kindDuration, typ: "duration",
		set: func(c *Config, v string) *Error {
			if s := strings.TrimSpace(v); s == "" || strings.EqualFold(s, "NULL") {
				c.MaxCommitDelay, c.MaxCommitDelayZero = 0, false
				return nil
			}
			d, ok := parseDuration(v)
			if !ok || d < 0 {
				return invalid("max_commit_delay", v, withAmpHint(v, "want a non-negative duration such as 10ms, 5us or 1s (a bare integer means milliseconds)"))
			}
			c.MaxCommitDelay, c.MaxCommitDelayZero = d, d == 0
			return nil
		},
		get: func(c *Config) string {
			if c.MaxCommitDelay == 0 && !c.MaxCommitDelayZero {
				return ""
			}
			return formatDuration(c.MaxCommitDelay)
		},
		show: func(c *Config) any {
			if c.MaxCommitDelay == 0 && !c.MaxCommitDelayZero {
				return ""
			}
			return c.MaxCommitDelay.String()
		},
	}
}

func parseDuration(v string) (time.Duration, bool) {
	s := strings.TrimSpace(v)
	if strings.EqualFold(s, "NULL") {
		return 0, true
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > math.MaxInt64/int64(time.Millisecond) || n < math.MinInt64/int64(time.Millisecond) {
			return 0, false
		}
		return time.Duration(n) * time.Millisecond, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// enumProp matches the value after upper-casing it and dropping spaces,
// underscores and hyphens against aliases; allowed names the canonical
// spellings for the error text.
func enumProp[T ~string](name string, f func(*Config) *T, aliases map[string]T, allowed string) property {
	return property{name: name, kind: kindEnum, typ: allowed,
		set: func(c *Config, v string) *Error {
			t, ok := aliases[normEnum(v)]
			if !ok {
				return invalid(name, v, withAmpHint(v, "want "+allowed))
			}
			*f(c) = t
			return nil
		},
		get: func(c *Config) string { return string(*f(c)) },
	}
}

func normEnum(v string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(v) {
		switch {
		case r == ' ' || r == '_' || r == '-' || r == '\t':
			continue
		case 'a' <= r && r <= 'z':
			r -= 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func readOnlyProp(name string) property {
	return property{name: name, kind: kindReadOnly, typ: "read-only",
		set: func(c *Config, v string) *Error {
			return readOnly(name, v, "read-only property; it can be shown but not set")
		},
	}
}

// directedReadProp keeps a spannerpb.DirectedReadOptions in protobuf JSON as
// written, after checking that it parses.
func directedReadProp() property {
	return property{name: "directed_read", kind: kindString, typ: "DirectedReadOptions in protobuf JSON",
		set: func(c *Config, v string) *Error {
			if strings.TrimSpace(v) != "" {
				if err := protojson.Unmarshal([]byte(v), &spannerpb.DirectedReadOptions{}); err != nil {
					return invalid("directed_read", v, "want DirectedReadOptions in protobuf JSON, e.g. "+
						`{"includeReplicas":{"replicaSelections":[{"location":"us-east1"}]}}`)
				}
			}
			c.DirectedRead = v
			return nil
		},
		get: func(c *Config) string { return c.DirectedRead },
	}
}

// withAmpHint adds a hint when a value looks like URL-style "a=1&b=2".
func withAmpHint(v, reason string) string {
	if strings.Contains(v, "&") && strings.Contains(v, "=") {
		return reason + " (separate properties with ';', not '&')"
	}
	return reason
}
