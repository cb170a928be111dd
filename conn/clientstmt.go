package conn

import (
	"database/sql/driver"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// Client-side statements change or show this connection's properties; they
// never reach Spanner.
//
//	SET [LOCAL] [SPANNER.]name = value   (value quoted or bare)
//	SHOW VARIABLE [SPANNER.]name
//	RESET [SPANNER.]name                 (back to the DSN's value)

// execClientStatement runs SET and RESET.
func (c *Conn) execClientStatement(st statement) (driver.Result, error) {
	switch st.kind {
	case kindClientSet:
		return driver.RowsAffected(0), c.set(st.rest)
	case kindClientReset:
		name := variableName(st.rest)
		v, err := c.client.Config().Get(name)
		if err == nil {
			err = c.setProperty(name, v)
		}
		return driver.RowsAffected(0), clientError(err)
	}
	return nil, status.Errorf(codes.InvalidArgument, "spannerfast: %s does not change anything; use QueryContext", st.keyword)
}

func (c *Conn) set(rest string) error {
	if w, after := firstWord(rest); w == "LOCAL" {
		return status.Errorf(codes.FailedPrecondition,
			"spannerfast: SET LOCAL needs an open transaction: %q", strings.TrimSpace(after))
	}
	name, value, ok := strings.Cut(rest, "=")
	if !ok {
		return status.Errorf(codes.InvalidArgument, "spannerfast: SET needs the form SET name = value, got %q", "SET "+rest)
	}
	return clientError(c.setProperty(variableName(name), unquote(strings.TrimSpace(value))))
}

// setProperty applies a per-connection property to this connection only.
func (c *Conn) setProperty(name, value string) error {
	if dsn.IsStartupProperty(name) {
		return fmt.Errorf("%s is a startup property: set it in the DSN", name)
	}
	return c.cfg.Set(name, value)
}

// showVariable answers SHOW VARIABLE with one row of one column.
func (c *Conn) showVariable(rest string) (driver.Rows, error) {
	w, after := firstWord(rest)
	if w != "VARIABLE" {
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: want SHOW VARIABLE name, got %q", "SHOW "+rest)
	}
	name := variableName(after)
	v, err := c.cfg.Get(name)
	if err != nil {
		return nil, clientError(err)
	}
	return &valueRows{columns: []string{strings.ToLower(name)}, values: []driver.Value{v}}, nil
}

func variableName(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";"))
	if len(s) > 8 && strings.EqualFold(s[:8], "spanner.") {
		s = s[8:]
	}
	return s
}

func unquote(v string) string {
	v = strings.TrimSuffix(v, ";")
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func clientError(err error) error {
	if err == nil {
		return nil
	}
	return status.Errorf(codes.InvalidArgument, "spannerfast: %v", err)
}

// valueRows is a one-row result made on the client.
type valueRows struct {
	columns []string
	values  []driver.Value
	done    bool
}

func (r *valueRows) Columns() []string { return r.columns }
func (r *valueRows) Close() error      { return nil }
func (r *valueRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	copy(dest, r.values)
	return nil
}
