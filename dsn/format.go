package dsn

import (
	"fmt"
	"io"
	"strings"
)

// Redacted replaces the value of a secret property (credentials_json) in
// String, in fmt's verbs and in errors.
const Redacted = "<redacted>"

// FormatDSN formats c as a DSN that Parse reads back into an equal Config
// (for any c that passes Validate): Parse(c.FormatDSN()) equals c. The
// output is deterministic: the endpoint as a HOST[:PORT]/ prefix (or
// endpoint= when it cannot be written as one), the path, then ';' and only
// the properties that differ from NewConfig's defaults, in a fixed order,
// with canonical snake_case keys and canonical values.
//
// The DSN contains credentials_json verbatim when it is set: never log it.
// Use String (or any fmt verb) for text that may be logged.
func (c *Config) FormatDSN() string { return c.format(false) }

// String formats c like FormatDSN but with the value of every secret
// property (credentials_json) replaced by Redacted, so that a logged
// configuration does not leak a key. It does not round-trip when a secret
// is set; use FormatDSN for that.
func (c *Config) String() string { return c.format(true) }

// Format makes every fmt verb print the redacted DSN of String (%#v prints
// GoString), so that a Config printed as a value or a pointer, with %v, %+v,
// %s, %q or %#v, never shows a secret.
func (c Config) Format(f fmt.State, verb rune) {
	switch verb {
	case 'v':
		if f.Flag('#') {
			_, _ = io.WriteString(f, c.GoString())
			return
		}
		_, _ = io.WriteString(f, c.String())
	case 's':
		_, _ = io.WriteString(f, c.String())
	case 'q':
		_, _ = fmt.Fprintf(f, "%q", c.String())
	default:
		_, _ = fmt.Fprintf(f, "%%!%c(dsn.Config=%s)", verb, c.String())
	}
}

// GoString prints c as a Go composite literal with secrets redacted.
func (c Config) GoString() string {
	c.redact()
	type config Config // no methods, so %#v prints the fields
	return strings.Replace(fmt.Sprintf("%#v", config(c)), "dsn.config{", "dsn.Config{", 1)
}

// redact replaces the values of secret properties that are set.
func (c *Config) redact() {
	for i := range properties {
		p := &properties[i]
		if p.secret && p.get(c) != "" {
			_ = p.set(c, Redacted)
		}
	}
}

func (c *Config) format(redact bool) string {
	if redact {
		cp := *c
		cp.redact()
		c = &cp
	}
	var b strings.Builder
	hostPrefix := validHost(c.Endpoint)
	if hostPrefix {
		b.WriteString(c.Endpoint)
		b.WriteByte('/')
	}
	switch short := c.shortPath(hostPrefix); {
	case short && c.Instance == ExperimentalHostDefault:
		b.WriteString("databases/")
		b.WriteString(c.Database)
	case short:
		b.WriteString("instances/")
		b.WriteString(c.Instance)
		b.WriteString("/databases/")
		b.WriteString(c.Database)
	default:
		b.WriteString("projects/")
		b.WriteString(c.Project)
		b.WriteString("/instances/")
		b.WriteString(c.Instance)
		if c.Database != "" {
			b.WriteString("/databases/")
			b.WriteString(c.Database)
		}
	}
	for i := range properties {
		p := &properties[i]
		if p.get == nil || p.pg || (hostPrefix && p.name == "endpoint") {
			continue
		}
		v := p.get(c)
		if v == p.get(defaults) {
			continue
		}
		b.WriteByte(';')
		b.WriteString(p.name)
		b.WriteByte('=')
		b.WriteString(v)
	}
	return b.String()
}

// defaults is the reference FormatDSN compares against; never modified.
var defaults = NewConfig()

// validHost reports whether Parse would read h back as the HOST[:PORT]
// prefix of a DSN.
func validHost(h string) bool {
	return h != "" && h != "projects" && !strings.ContainsAny(h, "/?;")
}
