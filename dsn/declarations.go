package dsn

import (
	"bytes"
	"strings"
)

// Scope says when a property may change and who may change it.
type Scope int

// Scopes, as go-sql-spanner's connection properties have them (startup and
// user properties) plus the values only the connection sets.
const (
	// ScopeStartup properties configure the connector (channels,
	// credentials, session): set in the DSN only, fixed for its lifetime.
	ScopeStartup Scope = iota + 1
	// ScopeConnection properties start at the DSN's value on each
	// connection; SET (for the session), SET LOCAL (until the transaction
	// ends) and RESET change them on that connection only.
	ScopeConnection
	// ScopeReadOnly properties are results the connection keeps (commit
	// timestamp, ...): SHOW VARIABLE reads them, nothing sets them.
	ScopeReadOnly
)

// String names the scope as the property reference does.
func (s Scope) String() string {
	switch s {
	case ScopeStartup:
		return "startup"
	case ScopeConnection:
		return "connection"
	case ScopeReadOnly:
		return "read-only"
	}
	return "unknown"
}

// SetBy says who may set a property of the scope.
func (s Scope) SetBy() string {
	switch s {
	case ScopeStartup:
		return "DSN"
	case ScopeConnection:
		return "DSN, SET, SET LOCAL, RESET"
	case ScopeReadOnly:
		return "nobody (SHOW only)"
	}
	return ""
}

// Property is the declaration of one property: what Declarations and
// Declaration report. The table in properties.go is its single source.
type Property struct {
	Name        string // canonical snake_case key
	Type        string // the value's type as the reference writes it
	Default     string // canonical DSN text of NewConfig's value ("" for read-only ones)
	Scope       Scope
	Secret      bool   // the value is replaced by Redacted wherever it is shown
	Description string // one line

	// ReadWriteTxnOption and ReadOnlyTxnOption mark an option of read-write
	// or read-only transactions: an open transaction takes it when its
	// first statement runs, so a change before then shapes it.
	ReadWriteTxnOption bool
	ReadOnlyTxnOption  bool

	// PostgreSQL marks a PostgreSQL setting (application_name,
	// server_version, ...): it exists only on a connection to a
	// PostgreSQL-dialect database, where SET, SET LOCAL, RESET and SHOW
	// reach it (SHOW only when its scope is read-only); a DSN cannot give
	// it.
	PostgreSQL bool
}

func (p *property) declaration() Property {
	d := Property{Name: p.name, Type: p.typ, Scope: ScopeConnection, Secret: p.secret, Description: p.desc,
		ReadWriteTxnOption: p.txnRW, ReadOnlyTxnOption: p.txnRO, PostgreSQL: p.pg}
	switch {
	case p.get == nil:
		d.Scope = ScopeReadOnly
	case p.startup:
		d.Scope = ScopeStartup
	}
	if p.get != nil {
		d.Default = p.get(defaults)
	}
	if p.get == nil && p.show != nil {
		// A read-only setting with a value of its own (server_version):
		// that value is its default.
		d.Default, _ = p.show(defaults).(string)
	}
	return d
}

// Declarations returns every property's declaration, in FormatDSN's order.
func Declarations() []Property {
	out := make([]Property, len(properties))
	for i := range properties {
		out[i] = properties[i].declaration()
	}
	return out
}

// Declaration returns the declaration of the property key (any spelling)
// and whether it is known.
func Declaration(key string) (Property, bool) {
	p := lookup(key)
	if p == nil {
		return Property{}, false
	}
	return p.declaration(), true
}

// Reference returns docs/properties.md, the DSN and property reference, as
// the declarations make it. A test in this package keeps the file equal to
// it (go test ./dsn -run TestPropertyDocs -update rewrites the file).
func Reference() []byte {
	var b bytes.Buffer
	b.WriteString(`# DSN and connection properties

<!-- Generated from the declarations in dsn/properties.go by
     go test ./dsn -run TestPropertyDocs -update
     Do not edit by hand: TestPropertyDocs fails when this file differs. -->

A DSN names the database and sets properties:

    [HOST[:PORT]/]projects/PROJECT/instances/INSTANCE[/databases/DATABASE][;key=value[;key=value]...]

Keys are case-insensitive and underscores in them do not count (` + "`usePlainText`, `use_plain_text`" + `); a value
runs to the next ` + "`;`" + `. The same DSN may be written as a PostgreSQL connection URL, as go-sql-spanner reads it
(` + "`TestParsePostgreSQLURL`" + `):

    postgresql://[USER[:PASSWORD]@][HOST[:PORT]]/projects/PROJECT/instances/INSTANCE[/databases/DATABASE][?key=value[&key=value]...]

(` + "`postgres://`" + ` too): the host is the endpoint, the query's URL-decoded parameters are the properties (the first
value of a repeated one wins), ` + "`sslmode=disable`" + ` means ` + "`use_plain_text=true`" + ` unless that is given (libpq's other
` + "`sslmode`" + ` values keep TLS), user and password are ignored, and the dialect is still read from the database. A
fragment, a ` + "`;`" + ` in the query or in a value, properties in the path and unknown keys are refused
(` + "`TestParsePostgreSQLURLRefused`" + `). Every property go-sql-spanner declares is one here, with its meaning
(` + "`TestGoSQLSpannerProperties`" + `).

On an open connection:

- ` + "`SET [SPANNER.]name = value`" + ` changes a connection property for the session (` + "`NULL`" + `: the property's
  default; ` + "`DEFAULT`" + `: the DSN's value);
- ` + "`SET LOCAL name = value`" + ` changes it until the open transaction ends;
- ` + "`RESET name`" + ` puts back the DSN's value;
- ` + "`SHOW VARIABLE name`" + ` reads any property, typed as go-sql-spanner types it (secrets as ` + "`" + Redacted + "`" + `);
- a name with a dot (` + "`SET my_ext.x = 'v'`" + `) is an extension variable, kept as text.

Scopes:

- **startup**: set in the DSN only and fixed for the connector; ` + "`SET`" + ` refuses it with FailedPrecondition.
- **connection**: the DSN gives each connection its starting value; ` + "`SET`" + `, ` + "`SET LOCAL`" + ` and ` + "`RESET`" + `
  change it on that connection only, and a connection going back to the pool gets the DSN's values again.
  With ` + "`connection_state_type=TRANSACTIONAL`" + `, changes made in a transaction are undone by its rollback.
- **read-only**: results the connection keeps; ` + "`SHOW VARIABLE`" + ` only (FailedPrecondition in a DSN or ` + "`SET`" + `).
- **(PostgreSQL)**: a PostgreSQL setting, known only on a connection to a PostgreSQL-dialect database (unknown on a
  GoogleSQL one, as in go-sql-spanner) and not in a DSN; ` + "`SHOW name`" + ` reads it there.

Values: booleans as ` + "`true`/`false`" + ` (also ` + "`1`, `0`, `t`, `f`" + `); durations in Go syntax (` + "`10s`, `100ms`, `1m30s`" + `)
or a bare integer meaning milliseconds; enumerations case-insensitive, ignoring ` + "`_`" + `, ` + "`-`" + ` and spaces.

| property | type | default | scope | set by | description |
|---|---|---|---|---|---|
`)
	for _, d := range Declarations() {
		def := ""
		if d.Default != "" {
			def = "`" + d.Default + "`"
		}
		scope, setBy := d.Scope.String(), d.Scope.SetBy()
		if d.PostgreSQL {
			scope += " (PostgreSQL)"
			setBy = strings.TrimPrefix(setBy, "DSN, ")
		}
		b.WriteString("| `" + d.Name + "` | " + cell(d.Type) + " | " + def + " | " + scope +
			" | " + setBy + " | " + cell(d.Description) + " |\n")
	}
	return b.Bytes()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, ">", "&gt;")
}
