package dsn

import "strings"

// String formats c as a DSN that Parse reads back into an equal Config (for
// any c that passes Validate). The output is deterministic: the endpoint as
// a HOST[:PORT]/ prefix (or endpoint= when it cannot be written as one), the
// path, then ';' and only the properties that differ from NewConfig's
// defaults, in a fixed order, with canonical snake_case keys and canonical
// values.
//
// The DSN contains credentials_json verbatim when it is set: do not log it.
func (c *Config) String() string {
	var b strings.Builder
	hostPrefix := validHost(c.Endpoint)
	if hostPrefix {
		b.WriteString(c.Endpoint)
		b.WriteByte('/')
	}
	b.WriteString("projects/")
	b.WriteString(c.Project)
	b.WriteString("/instances/")
	b.WriteString(c.Instance)
	if c.Database != "" {
		b.WriteString("/databases/")
		b.WriteString(c.Database)
	}
	for i := range properties {
		p := &properties[i]
		if p.get == nil || (hostPrefix && p.name == "endpoint") {
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

// defaults is the reference String compares against; never modified.
var defaults = NewConfig()

// validHost reports whether Parse would read h back as the HOST[:PORT]
// prefix of a DSN.
func validHost(h string) bool {
	return h != "" && h != "projects" && !strings.ContainsAny(h, "/?;")
}
