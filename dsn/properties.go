package dsn

import (
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

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
// allowed. The table order is the order String writes keys in.
type property struct {
	name string // canonical snake_case key
	norm string // name lower-cased without underscores
	kind propKind
	set  func(c *Config, v string) *Error
	get  func(c *Config) string // nil for read-only properties
	// startup properties are fixed when the connector is made; SET cannot
	// change them on a connection.
	startup bool
}

func startup(p property) property {
	p.startup = true
	return p
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

func stringProp(name string, f func(*Config) *string) property {
	return property{name: name, kind: kindString,
		set: func(c *Config, v string) *Error { *f(c) = v; return nil },
		get: func(c *Config) string { return *f(c) },
	}
}

func boolProp(name string, f func(*Config) *bool) property {
	return property{name: name, kind: kindBool,
		set: func(c *Config, v string) *Error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return invalid(name, v, withAmpHint(v, "want true or false"))
			}
			*f(c) = b
			return nil
		},
		get: func(c *Config) string { return strconv.FormatBool(*f(c)) },
	}
}

// intProp accepts lo..hi; when zeroDefault is non-zero, 0 stands for it
// (go-sql-spanner uses 0 for "the default" on these keys).
func intProp(name string, f func(*Config) *int, lo, hi, zeroDefault int) property {
	return property{name: name, kind: kindInt,
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
	return property{name: name, kind: kindInt,
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
		get: func(c *Config) string { return itoa(*f(c)) },
	}
}

// durationProp reads a non-negative duration up to hi (0: no upper bound):
// Go syntax ("10s", "100ms", "5us", "1ns", "1m30s"), a bare integer meaning
// milliseconds, or NULL meaning 0, as go-sql-spanner does.
func durationProp(name string, f func(*Config) *time.Duration, hi time.Duration) property {
	return property{name: name, kind: kindDuration,
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
	return property{name: name, kind: kindEnum,
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
	return property{name: name, kind: kindReadOnly,
		set: func(c *Config, v string) *Error {
			return invalid(name, v, "read-only property; it can be shown but not set")
		},
	}
}

// withAmpHint adds a hint when a value looks like URL-style "a=1&b=2".
func withAmpHint(v, reason string) string {
	if strings.Contains(v, "&") && strings.Contains(v, "=") {
		return reason + " (separate properties with ';', not '&')"
	}
	return reason
}

var priorityAliases = map[string]Priority{
	"UNSPECIFIED": PriorityUnspecified, "PRIORITYUNSPECIFIED": PriorityUnspecified,
	"LOW": PriorityLow, "PRIORITYLOW": PriorityLow,
	"MEDIUM": PriorityMedium, "PRIORITYMEDIUM": PriorityMedium,
	"HIGH": PriorityHigh, "PRIORITYHIGH": PriorityHigh,
}

const priorityAllowed = "HIGH, MEDIUM, LOW or UNSPECIFIED"

var isolationNames = map[string]sql.IsolationLevel{
	"DEFAULT": sql.LevelDefault, "LEVELDEFAULT": sql.LevelDefault, "ISOLATIONLEVELUNSPECIFIED": sql.LevelDefault,
	"SERIALIZABLE": sql.LevelSerializable, "LEVELSERIALIZABLE": sql.LevelSerializable,
	"REPEATABLEREAD": sql.LevelRepeatableRead, "LEVELREPEATABLEREAD": sql.LevelRepeatableRead,
	"SNAPSHOT": sql.LevelSnapshot, "LEVELSNAPSHOT": sql.LevelSnapshot,
}

// IsolationLevelName returns the canonical DSN spelling of l (DEFAULT,
// SERIALIZABLE, REPEATABLE_READ, SNAPSHOT), or "" for a level the driver does
// not support.
func IsolationLevelName(l sql.IsolationLevel) string {
	switch l {
	case sql.LevelDefault:
		return "DEFAULT"
	case sql.LevelSerializable:
		return "SERIALIZABLE"
	case sql.LevelRepeatableRead:
		return "REPEATABLE_READ"
	case sql.LevelSnapshot:
		return "SNAPSHOT"
	}
	return ""
}

var properties = []property{
	// Startup properties.
	startup(stringProp("endpoint", func(c *Config) *string { return &c.Endpoint })),
	startup(stringProp("authority", func(c *Config) *string { return &c.Authority })),
	startup(stringProp("credentials", func(c *Config) *string { return &c.Credentials })),
	startup(stringProp("credentials_json", func(c *Config) *string { return &c.CredentialsJSON })),
	startup(boolProp("use_plain_text", func(c *Config) *bool { return &c.UsePlainText })),
	startup(boolProp("auto_config_emulator", func(c *Config) *bool { return &c.AutoConfigEmulator })),
	startup(boolProp("disable_native_metrics", func(c *Config) *bool { return &c.DisableNativeMetrics })),
	startup(intProp("min_sessions", func(c *Config) *int { return &c.MinSessions }, 0, math.MaxInt32, 0)),
	startup(intProp("max_sessions", func(c *Config) *int { return &c.MaxSessions }, 0, math.MaxInt32, 0)),
	startup(intProp("num_channels", func(c *Config) *int { return &c.NumChannels }, 1, MaxNumChannels, DefaultNumChannels)),
	startup(stringProp("database_role", func(c *Config) *string { return &c.DatabaseRole })),
	startup(boolProp("disable_route_to_leader", func(c *Config) *bool { return &c.DisableRouteToLeader })),
	startup(boolProp("enable_end_to_end_tracing", func(c *Config) *bool { return &c.EnableEndToEndTracing })),
	startup(intProp("statement_cache_size", func(c *Config) *int { return &c.StatementCacheSize }, 1, math.MaxInt32, DefaultStatementCacheSize)),
	startup(boolProp("disable_statement_cache", func(c *Config) *bool { return &c.DisableStatementCache })),
	startup(durationProp("connect_timeout", func(c *Config) *time.Duration { return &c.ConnectTimeout }, 0)),

	// Per-connection properties.
	{name: "isolation_level", kind: kindEnum,
		set: func(c *Config, v string) *Error {
			l, ok := isolationNames[normEnum(v)]
			if !ok {
				return invalid("isolation_level", v, withAmpHint(v, "want DEFAULT, SERIALIZABLE, REPEATABLE_READ or SNAPSHOT"))
			}
			c.IsolationLevel = l
			return nil
		},
		get: func(c *Config) string {
			if n := IsolationLevelName(c.IsolationLevel); n != "" {
				return n
			}
			return itoa(int64(c.IsolationLevel)) // unsupported: Validate reports it
		},
	},
	enumProp("read_lock_mode", func(c *Config) *ReadLockMode { return &c.ReadLockMode }, map[string]ReadLockMode{
		"UNSPECIFIED": ReadLockModeUnspecified, "READLOCKMODEUNSPECIFIED": ReadLockModeUnspecified,
		"PESSIMISTIC": ReadLockModePessimistic, "OPTIMISTIC": ReadLockModeOptimistic,
	}, "PESSIMISTIC, OPTIMISTIC or UNSPECIFIED"),
	enumProp("begin_transaction_option", func(c *Config) *BeginTransactionOption { return &c.BeginTransactionOption }, map[string]BeginTransactionOption{
		"DEFAULT": BeginTransactionInline, "DEFAULTBEGINTRANSACTION": BeginTransactionInline,
		"INLINE": BeginTransactionInline, "INLINED": BeginTransactionInline, "INLINEDBEGINTRANSACTION": BeginTransactionInline,
		"EXPLICIT": BeginTransactionExplicit, "EXPLICITBEGINTRANSACTION": BeginTransactionExplicit,
	}, "INLINE (or DEFAULT) or EXPLICIT"),
	enumProp("autocommit_dml_mode", func(c *Config) *AutocommitDMLMode { return &c.AutocommitDMLMode }, map[string]AutocommitDMLMode{
		"TRANSACTIONAL": AutocommitTransactional, "PARTITIONEDNONATOMIC": AutocommitPartitionedNonAtomic,
	}, "TRANSACTIONAL or PARTITIONED_NON_ATOMIC"),
	boolProp("retry_aborts_internally", func(c *Config) *bool { return &c.RetryAbortsInternally }),
	{name: "read_only_staleness", kind: kindEnum,
		set: func(c *Config, v string) *Error {
			s, err := ParseStaleness(v)
			if err != nil {
				e := err.(*Error)
				e.Reason = withAmpHint(v, e.Reason)
				return e
			}
			c.ReadOnlyStaleness = s
			return nil
		},
		get: func(c *Config) string { return c.ReadOnlyStaleness.String() },
	},
	enumProp("rpc_priority", func(c *Config) *Priority { return &c.RPCPriority }, priorityAliases, priorityAllowed),
	enumProp("commit_priority", func(c *Config) *Priority { return &c.CommitPriority }, priorityAliases, priorityAllowed),
	stringProp("optimizer_version", func(c *Config) *string { return &c.OptimizerVersion }),
	stringProp("optimizer_statistics_package", func(c *Config) *string { return &c.OptimizerStatisticsPackage }),
	boolProp("decode_to_native_arrays", func(c *Config) *bool { return &c.DecodeToNativeArrays }),
	boolProp("decode_numeric_to_string", func(c *Config) *bool { return &c.DecodeNumericToString }),
	stringProp("transaction_tag", func(c *Config) *string { return &c.TransactionTag }),
	stringProp("statement_tag", func(c *Config) *string { return &c.StatementTag }),
	durationProp("max_commit_delay", func(c *Config) *time.Duration { return &c.MaxCommitDelay }, MaxCommitDelayLimit),
	durationProp("statement_timeout", func(c *Config) *time.Duration { return &c.StatementTimeout }, 0),
	boolProp("return_commit_stats", func(c *Config) *bool { return &c.ReturnCommitStats }),
	boolProp("exclude_txn_from_change_streams", func(c *Config) *bool { return &c.ExcludeTxnFromChangeStreams }),
	readOnlyProp("commit_timestamp"),
	readOnlyProp("commit_response"),

	// spannerfast's own.
	boolProp("raw_decode", func(c *Config) *bool { return &c.RawDecode }),
	intProp("prefetch_messages", func(c *Config) *int { return &c.PrefetchMessages }, MinPrefetchMessages, MaxPrefetchMessages, 0),
	bytesProp("max_buffered_bytes", func(c *Config) *int64 { return &c.MaxBufferedBytes }, 0),
	boolProp("poison_raw_buffers", func(c *Config) *bool { return &c.PoisonRawBuffers }),
}

// byNorm maps a normalised key to its property.
var byNorm = func() map[string]*property {
	m := make(map[string]*property, len(properties))
	for i := range properties {
		p := &properties[i]
		p.norm = normKey(p.name)
		if _, dup := m[p.norm]; dup {
			panic("dsn: duplicate property " + p.name)
		}
		m[p.norm] = p
	}
	return m
}()

func lookup(key string) *property { return byNorm[normKey(strings.TrimSpace(key))] }

// Properties returns the canonical names of all properties, in the order
// String writes them (read-only ones included).
func Properties() []string {
	out := make([]string, len(properties))
	for i := range properties {
		out[i] = properties[i].name
	}
	return out
}

// Set parses value into the property key (any spelling: useplaintext,
// usePlainText, use_plain_text). It is what Parse does for each key=value and
// what a SET statement needs. On error c is unchanged and the error is an
// *Error.
func (c *Config) Set(key, value string) error {
	p := lookup(key)
	if p == nil {
		return unknownKey(strings.TrimSpace(key))
	}
	if err := p.set(c, value); err != nil {
		return err
	}
	return nil
}

// Get returns the canonical text of the property key (as SHOW VARIABLE
// shows it). Read-only properties are not stored in Config: Get reports them
// as ErrInvalidValue.
func (c *Config) Get(key string) (string, error) {
	p := lookup(key)
	if p == nil {
		return "", unknownKey(strings.TrimSpace(key))
	}
	if p.get == nil {
		return "", fmt.Errorf("dsn: %s is read-only and not kept in Config (the connection keeps it): %w", p.name, ErrInvalidValue)
	}
	return p.get(c), nil
}
