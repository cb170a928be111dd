package dsn

import (
	"net/url"
	"strings"
)

// PostgreSQL connection URLs: go-sql-spanner (#877) also takes a DSN in the
// form PostgreSQL tools write,
//
//	postgresql://[USER[:PASSWORD]@][HOST[:PORT]]/projects/P/instances/I[/databases/D][?key=value[&key=value]...]
//
// (postgres:// too; the scheme in any case). It means what the native form
// with the same parts means: HOST[:PORT] is the endpoint (none: the
// default one), the path names the database, each query parameter is a
// property. Nothing in it says which dialect the database has: the
// connector reads it from the database, as for any DSN. These are
// go-sql-spanner's rules, and spannerfast's where it is stricter:
//
//   - USER and PASSWORD are ignored: Spanner authenticates with Google
//     credentials (credentials, credentials_json, or the environment's).
//   - Keys and values are URL-decoded ('+' is a space, %XX a byte); a key
//     is case-insensitive and its underscores do not count, as in the
//     native form. When a property is given more than once the first value
//     wins (go-sql-spanner takes a repeated key's first value).
//   - sslmode is libpq's: disable means use_plain_text=true unless the URL
//     sets use_plain_text; allow, prefer, require, verify-ca and
//     verify-full keep TLS, the default. Other values are refused.
//   - A value must not contain ';' (%3B), as in the native form, which
//     FormatDSN writes.
//   - Unknown keys are refused, as in the native form (go-sql-spanner
//     ignores them), and so is what go-sql-spanner would silently drop: a
//     fragment (#...), a ';' in the query (it separates nothing here), a
//     host or properties in the path.

// isURL reports whether s is in the PostgreSQL URL form.
func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "postgresql://") || strings.HasPrefix(l, "postgres://")
}

const urlGrammar = "postgresql://[USER[:PASSWORD]@][HOST[:PORT]]/" + pathGrammar + "[?key=value[&key=value]...]"

// sslModes are libpq's sslmode values, and whether each turns TLS off.
var sslModes = map[string]bool{
	"disable": true, "allow": false, "prefer": false, "require": false, "verify-ca": false, "verify-full": false,
}

// splitURL takes a PostgreSQL connection URL apart.
func splitURL(s string) (*parts, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, &Error{Kind: ErrMalformed, Reason: "not a URL (" + unwrapURLError(err) + "): want " + urlGrammar}
	}
	if u.Fragment != "" || strings.HasSuffix(s, "#") {
		// The fragment is not shown: it may be the rest of a secret.
		return nil, &Error{Kind: ErrMalformed,
			Reason: "a fragment (#...) in a connection URL: write a '#' in a value as %23"}
	}
	if reason := checkEndpoint(u.Host); reason != "" {
		return nil, invalid("endpoint", u.Host, reason) // the host is the endpoint's value
	}
	pt := &parts{host: u.Host, params: map[string]string{}}
	path := strings.TrimPrefix(u.Path, "/")
	if !strings.HasPrefix(path, "projects/") {
		return nil, &Error{Kind: ErrMalformed, Value: path,
			Reason: "want the path /" + pathGrammar + " after the host, got " + quote(u.Path) + ": want " + urlGrammar}
	}
	if i := strings.IndexAny(path, ";?"); i >= 0 {
		return nil, &Error{Kind: ErrMalformed, Value: path,
			Reason: "properties in the path of a connection URL: write them as ?key=value&key=value"}
	}
	if err := pt.parsePath(path); err != nil {
		return nil, err
	}
	return pt, pt.parseQuery(u.RawQuery)
}

// parseQuery reads the URL's "key=value&key=value...".
func (pt *parts) parseQuery(q string) error {
	seen := map[*property]bool{}
	var plainSet, sslSeen, sslDisable bool
	for part := range strings.SplitSeq(q, "&") {
		if part == "" {
			continue
		}
		if strings.Contains(part, ";") {
			return &Error{Kind: ErrMalformed, Value: part,
				Reason: "';' in the query of a connection URL: separate properties with '&'"}
		}
		rawKey, rawValue, _ := strings.Cut(part, "=")
		key, err1 := url.QueryUnescape(rawKey)
		value, err2 := url.QueryUnescape(rawValue)
		if err1 != nil || err2 != nil {
			return &Error{Kind: ErrMalformed, Value: part,
				Reason: "bad %-escape in " + quote(part) + ": want %XX with two hex digits"}
		}
		if strings.TrimSpace(key) == "" {
			return &Error{Kind: ErrMalformed, Value: part,
				Reason: "property " + quote(part) + " has an empty key: want key=value"}
		}
		if strings.Contains(value, ";") {
			// FormatDSN writes the native form, whose values end at ';'.
			return invalid(strings.TrimSpace(key), value, "must not contain ';' (%3B): values are not quoted")
		}
		if normKey(strings.TrimSpace(key)) == "sslmode" {
			disable, ok := sslModes[strings.ToLower(strings.TrimSpace(value))]
			if !ok {
				return invalid("sslmode", value, "want disable, allow, prefer, require, verify-ca or verify-full")
			}
			if !sslSeen {
				sslSeen, sslDisable = true, disable
			}
			continue // its meaning is use_plain_text's, added below
		}
		if lower := strings.ToLower(key); !hasKey(pt.params, lower) {
			pt.params[lower] = value
		}
		p := lookup(key)
		if p != nil && seen[p] {
			continue // the first value wins
		}
		if p != nil {
			seen[p] = true
			plainSet = plainSet || p.name == "use_plain_text"
		}
		pt.props = append(pt.props, [2]string{key, value})
	}
	if sslDisable && !plainSet {
		pt.props = append(pt.props, [2]string{"use_plain_text", "true"})
		pt.params["useplaintext"] = "true"
	}
	return nil
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// unwrapURLError drops net/url's "parse URL:" prefix, which repeats the
// whole DSN (a secret may be in it).
func unwrapURLError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return err.Error()
}
