package dsn

import (
	"database/sql"
	"strings"
)

// PostgreSQL settings: the properties that exist only on a connection to a
// PostgreSQL-dialect database (Config.DatabaseDialect POSTGRESQL), the
// names PostgreSQL tools SET and SHOW when they connect (application_name,
// client_encoding, ...), as go-sql-spanner offers them there. On a
// GoogleSQL database they are unknown, as in go-sql-spanner. They are not
// DSN properties (go-sql-spanner's DSN has none of them): the DSN is read
// before the database's dialect is known.

// Values of the read-only PostgreSQL settings, as go-sql-spanner reports
// them (the PostgreSQL version Spanner's PostgreSQL interface speaks).
const (
	PGServerVersion    = "14.1"
	PGServerVersionNum = "140001"
)

// pg marks p as a PostgreSQL setting.
func pg(p property) property {
	p.pg = true
	return p
}

// pgConstant is a read-only PostgreSQL setting whose value never changes.
func pgConstant(name, value string) property {
	p := readOnlyProp(name)
	p.typ = "string"
	p.show = func(*Config) any { return value }
	return pg(p)
}

// pgStringProp is a PostgreSQL setting kept as text; canon checks and
// canonicalises a value ("" for an empty value is the property's own
// business).
func pgStringProp(name string, f func(*Config) *string, canon func(string) (string, bool), want string) property {
	p := stringProp(name, f)
	if canon != nil {
		p.set = func(c *Config, v string) *Error {
			s, ok := canon(strings.TrimSpace(v))
			if !ok {
				return invalid(name, v, want)
			}
			*f(c) = s
			return nil
		}
	}
	return pg(p)
}

// clientEncoding accepts UTF8 in PostgreSQL's spellings: Spanner speaks
// nothing else.
func clientEncoding(v string) (string, bool) {
	switch strings.ToUpper(strings.ReplaceAll(v, "-", "")) {
	case "UTF8", "UNICODE":
		return "UTF8", true
	}
	return "", false
}

// clientMinMessages accepts PostgreSQL's message levels.
func clientMinMessages(v string) (string, bool) {
	l := strings.ToLower(v)
	switch l {
	case "debug5", "debug4", "debug3", "debug2", "debug1", "debug", "log", "notice", "warning", "error":
		return l, true
	}
	return "", false
}

// defaultTxnIsolationProp is default_transaction_isolation: the isolation
// of read-write transactions that neither say one nor find one in
// isolation_level (TxnIsolation). Spanner's PostgreSQL interface has
// serializable and repeatable read; go-sql-spanner refuses the others.
func defaultTxnIsolationProp() property {
	const want = "want serializable or repeatable read (Spanner's PostgreSQL interface has no other isolation level)"
	return pg(property{name: "default_transaction_isolation", kind: kindEnum, typ: "serializable or repeatable read",
		set: func(c *Config, v string) *Error {
			switch normEnum(v) {
			case "":
				// Not set: Spanner's default, serializable.
				c.DefaultTransactionIsolation = sql.LevelDefault
			case "SERIALIZABLE":
				c.DefaultTransactionIsolation = sql.LevelSerializable
			case "REPEATABLEREAD":
				c.DefaultTransactionIsolation = sql.LevelRepeatableRead
			default:
				return invalid("default_transaction_isolation", v, want)
			}
			return nil
		},
		get: func(c *Config) string {
			switch c.DefaultTransactionIsolation {
			case sql.LevelSerializable:
				return "serializable"
			case sql.LevelRepeatableRead:
				return "repeatable read"
			}
			return ""
		},
		show: func(c *Config) any { return pgIsolationText(c.DefaultTransactionIsolation) },
	}.txnOption(true, false))
}

// transactionIsolationProp is transaction_isolation, PostgreSQL's
// read-only name of the isolation transactions get (TxnIsolation).
func transactionIsolationProp() property {
	p := readOnlyProp("transaction_isolation")
	p.typ = "string"
	p.show = func(c *Config) any { return pgIsolationText(c.TxnIsolation()) }
	return pg(p)
}

// pgIsolationText spells an isolation level as PostgreSQL does; the default
// is serializable, Spanner's default.
func pgIsolationText(l sql.IsolationLevel) string {
	if l == sql.LevelDefault {
		l = sql.LevelSerializable
	}
	return strings.ToLower(l.String())
}

// TxnIsolation returns the isolation of a read-write transaction that does
// not give its own: isolation_level, or when that is DEFAULT on a
// PostgreSQL-dialect database, default_transaction_isolation (DEFAULT when
// neither is set: Spanner's default, serializable).
func (c *Config) TxnIsolation() sql.IsolationLevel {
	if c.IsolationLevel == sql.LevelDefault && c.DatabaseDialect == DialectPostgreSQL {
		return c.DefaultTransactionIsolation
	}
	return c.IsolationLevel
}

// pgOnHere refuses a PostgreSQL setting on a configuration whose database
// is not a PostgreSQL one, as go-sql-spanner does (unknown there).
func (c *Config) pgOnHere(p *property, key string) *Error {
	if p.pg && c.DatabaseDialect != DialectPostgreSQL {
		return &Error{Kind: ErrUnknownProperty, Key: strings.TrimSpace(key),
			Reason: "a PostgreSQL setting, known only on a PostgreSQL-dialect database"}
	}
	return nil
}

// notInDSN refuses a PostgreSQL setting in a DSN.
func notInDSN(p *property, value string) *Error {
	return &Error{Kind: ErrUnknownProperty, Key: p.name, Value: value,
		Reason: "a PostgreSQL setting, not a DSN property: SET it on a connection to a PostgreSQL-dialect database"}
}
