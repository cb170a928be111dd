package dsn

import (
	"strings"
)

const pathGrammar = "projects/PROJECT/instances/INSTANCE[/databases/DATABASE]"

// Parse parses a DSN of the form
//
//	[HOST[:PORT]/]projects/P/instances/I[/databases/D][(?|;)key=value[;key=value]...]
//
// Keys are case-insensitive and underscores in them do not count
// (usePlainText, useplaintext and use_plain_text are one key); values are
// taken as written, up to the next ';'. Empty segments (";;", a trailing
// ';') are skipped; when a key repeats, the last value wins. HOST[:PORT]
// sets Endpoint and endpoint= overrides it. Properties not named keep the
// defaults of NewConfig.
//
// A DSN that starts with postgresql:// or postgres:// is a PostgreSQL
// connection URL, as go-sql-spanner reads it (its rules are in url.go):
//
//	postgresql://[USER[:PASSWORD]@][HOST[:PORT]]/projects/P/instances/I[/databases/D][?key=value[&key=value]...]
//
// Errors are *Error values: ErrMalformed for a DSN that does not follow the
// grammar, ErrUnknownProperty (with the closest known key as a suggestion)
// and ErrInvalidValue (naming the key, the value and what is allowed).
func Parse(s string) (*Config, error) {
	pt, err := split(s)
	if err != nil {
		return nil, err
	}
	return pt.config()
}

// parts is a DSN taken apart: its host, its path and its properties as
// written, in the order they apply.
type parts struct {
	host                        string
	project, instance, database string
	props                       [][2]string // key, value
	params                      map[string]string
	// noProject is the error of a path without projects/: it stands
	// unless the properties make the host an experimental one.
	noProject *Error
	shortPath string
}

// config applies pt to NewConfig.
func (pt *parts) config() (*Config, error) {
	if pt.noProject != nil {
		if !pt.experimentalHost() {
			return nil, pt.noProject
		}
		if err := pt.parseShortPath(pt.shortPath); err != nil {
			return nil, err
		}
	}
	c := NewConfig()
	c.Endpoint = pt.host
	c.Project, c.Instance, c.Database = pt.project, pt.instance, pt.database
	for _, kv := range pt.props {
		if err := c.Set(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// split takes a DSN apart in its form: a PostgreSQL URL or the native
// grammar.
func split(s string) (*parts, error) {
	if isURL(s) {
		return splitURL(s)
	}
	if strings.TrimSpace(s) == "" {
		return nil, malformed("empty DSN: want [HOST[:PORT]/]%s[;key=value...]", pathGrammar)
	}
	path, params, hasParams := s, "", false
	if i := strings.IndexAny(s, "?;"); i >= 0 {
		path, params, hasParams = s[:i], s[i+1:], true
	}

	pt := &parts{params: map[string]string{}}
	rest := path
	if !strings.HasPrefix(path, "projects/") {
		i := strings.IndexByte(path, '/')
		if i < 0 {
			return nil, &Error{Kind: ErrMalformed, Value: path,
				Reason: "want [HOST[:PORT]/]" + pathGrammar + ", got " + quote(path)}
		}
		host := path[:i]
		rest = path[i+1:]
		if host == "" {
			return nil, &Error{Kind: ErrMalformed, Value: path,
				Reason: "empty host before " + quote(rest) + ": drop the leading '/' or name a HOST[:PORT]"}
		}
		if !strings.HasPrefix(rest, "projects/") {
			pt.noProject = &Error{Kind: ErrMalformed, Value: rest,
				Reason: "want " + pathGrammar + " after the host " + quote(host) + ", got " + quote(rest)}
			if !isShortPath(rest) {
				return nil, pt.noProject
			}
		}
		if reason := checkEndpoint(host); reason != "" {
			return nil, invalid("endpoint", host, reason) // the prefix is the endpoint's value
		}
		pt.host = host
	}
	if pt.noProject != nil {
		// An experimental host's HOST/[instances/I/]databases/D, read by
		// config once the properties say whether the host is one.
		pt.shortPath = rest
	} else if err := pt.parsePath(rest); err != nil {
		return nil, err
	}
	if hasParams {
		if err := pt.parseParams(params); err != nil {
			return nil, err
		}
	}
	return pt, nil
}

// parsePath reads "projects/P/instances/I[/databases/D]".
func (pt *parts) parsePath(p string) error {
	seg := strings.Split(p, "/")
	bad := func(why string) error {
		return &Error{Kind: ErrMalformed, Value: p, Reason: why + "want " + pathGrammar + ", got " + quote(p)}
	}
	switch {
	case len(seg) == 2 || (len(seg) == 3 && seg[2] == "instances"):
		return bad("missing instance: ")
	case len(seg) < 4 || seg[2] != "instances":
		return bad("")
	case len(seg) == 5 && seg[4] == "databases":
		return bad("missing database id: ")
	case len(seg) == 5 || (len(seg) == 6 && seg[4] != "databases"):
		return bad("")
	case len(seg) > 6:
		return bad("extra path segments: ")
	}
	project, instance, database := seg[1], seg[3], ""
	if len(seg) == 6 {
		database = seg[5]
		if database == "" {
			return bad("missing database id: ")
		}
	}
	if err := checkPath(project, instance, database); err != nil {
		return err
	}
	pt.project, pt.instance, pt.database = project, instance, database
	return nil
}

// checkPath checks the ids' characters as Spanner (and go-sql-spanner's DSN
// grammar) allow them.
func checkPath(project, instance, database string) error {
	if project == "" {
		return malformed("empty project id: want %s", pathGrammar)
	}
	if project != "DEFAULT_PROJECT_ID" && !idChars(project, ".:") {
		return &Error{Kind: ErrMalformed, Value: project,
			Reason: "invalid project id " + quote(project) + ": want lowercase letters, digits, '-', '.' and ':'"}
	}
	if instance == "" {
		return malformed("empty instance id: want %s", pathGrammar)
	}
	if !idChars(instance, "") {
		return &Error{Kind: ErrMalformed, Value: instance,
			Reason: "invalid instance id " + quote(instance) + ": want lowercase letters, digits and '-'"}
	}
	if database != "" && !idChars(database, "_") {
		return &Error{Kind: ErrMalformed, Value: database,
			Reason: "invalid database id " + quote(database) + ": want lowercase letters, digits, '-' and '_'"}
	}
	return nil
}

func idChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if ('a' <= b && b <= 'z') || ('0' <= b && b <= '9') || b == '-' || strings.IndexByte(extra, b) >= 0 {
			continue
		}
		return false
	}
	return true
}

// parseParams reads "key=value;key=value...". Params keeps them as
// go-sql-spanner's ExtractConnectorConfig does: the key in lower case, the
// last value of a repeated key.
func (pt *parts) parseParams(params string) error {
	for part := range strings.SplitSeq(params, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		key, value, ok := strings.Cut(part, "=")
		if !ok {
			return &Error{Kind: ErrMalformed, Value: part,
				Reason: "property " + quote(part) + " has no '=': want key=value, separated by ';'"}
		}
		if strings.TrimSpace(key) == "" {
			return &Error{Kind: ErrMalformed, Value: part,
				Reason: "property " + quote(part) + " has an empty key: want key=value"}
		}
		pt.props = append(pt.props, [2]string{key, value})
		pt.params[strings.ToLower(key)] = value
	}
	return nil
}
