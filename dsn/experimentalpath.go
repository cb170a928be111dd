package dsn

import (
	"strconv"
	"strings"
)

// An experimental host's DSN may leave out the project and the instance,
// as go-sql-spanner allows: with is_experimental_host=true,
// HOST/databases/D and HOST/instances/I/databases/D are valid, the project
// being "default" and the instance "default" unless named (its
// experimentalHostProject and experimentalHostInstance). Without that
// property these paths stay malformed.

// ExperimentalHostDefault is the project, and the instance unless named, of
// an experimental host's DSN that leaves them out.
const ExperimentalHostDefault = "default"

// isShortPath reports whether p begins as an experimental host's path
// without a project.
func isShortPath(p string) bool {
	return strings.HasPrefix(p, "databases/") || strings.HasPrefix(p, "instances/")
}

// parseShortPath reads "[instances/I/]databases/D".
func (pt *parts) parseShortPath(p string) error {
	seg := strings.Split(p, "/")
	instance := ExperimentalHostDefault
	if seg[0] == "instances" && len(seg) >= 2 {
		instance, seg = seg[1], seg[2:]
	}
	if len(seg) != 2 || seg[0] != "databases" || seg[1] == "" {
		return &Error{Kind: ErrMalformed, Value: p,
			Reason: "want [instances/INSTANCE/]databases/DATABASE (or " + pathGrammar + ") after an experimental host, got " + quote(p)}
	}
	if err := checkPath(ExperimentalHostDefault, instance, seg[1]); err != nil {
		return err
	}
	pt.project, pt.instance, pt.database = ExperimentalHostDefault, instance, seg[1]
	return nil
}

// experimentalHost reports whether the properties, the last one written
// winning, set is_experimental_host to true.
func (pt *parts) experimentalHost() bool {
	on := false
	for _, kv := range pt.props {
		if p := lookup(kv[0]); p != nil && p.name == "is_experimental_host" {
			on, _ = strconv.ParseBool(strings.TrimSpace(kv[1]))
		}
	}
	return on
}

// shortPath reports whether c formats as an experimental host's DSN
// without its project: HOST/[instances/I/]databases/D.
func (c *Config) shortPath(hostPrefix bool) bool {
	return hostPrefix && c.IsExperimentalHost && c.Project == ExperimentalHostDefault && c.Database != ""
}
