package dsn

import (
	"strconv"
	"strings"
)

// endpointProp is endpoint: host[:port], or a gRPC target URI (a value
// with '/', such as dns:///host:443), passed on as written. A port, when
// the value has one, must be a number from 1 to 65535: a port the dialer
// can never use is refused here, naming it, rather than on the first
// statement.
func endpointProp() property {
	p := stringProp("endpoint", func(c *Config) *string { return &c.Endpoint })
	set := p.set
	p.set = func(c *Config, v string) *Error {
		if reason := checkEndpoint(v); reason != "" {
			return invalid("endpoint", v, reason)
		}
		return set(c, v)
	}
	return p
}

// checkEndpoint returns what is wrong with the port of endpoint e, or ""
// when it has none or a valid one. Bracketed IPv6 addresses ([::1]:9010)
// have their port after the ']'; a value with more than one ':' and no
// brackets is an IPv6 address without a port.
func checkEndpoint(e string) string {
	if e == "" || strings.Contains(e, "/") {
		return ""
	}
	var port string
	switch {
	case strings.HasPrefix(e, "["):
		end := strings.IndexByte(e, ']')
		if end < 0 {
			return "unclosed '[' in " + quote(e) + ": want [IPv6]:PORT"
		}
		rest := e[end+1:]
		if rest == "" {
			return ""
		}
		if rest[0] != ':' {
			return "unexpected " + quote(rest) + " after ']' in " + quote(e) + ": want [IPv6]:PORT"
		}
		port = rest[1:]
	case strings.Count(e, ":") == 1:
		port = e[strings.IndexByte(e, ':')+1:]
	default:
		return ""
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strings.TrimLeft(port, "0123456789") != "" {
		return "invalid port " + quote(port) + " in " + quote(e) + ": want a number from 1 to 65535"
	}
	return ""
}
