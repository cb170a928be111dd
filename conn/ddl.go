package conn

import (
	"context"
	"database/sql/driver"
	"strings"

	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// DDL through database/sql, as go-sql-spanner runs it: CREATE, ALTER,
// DROP, GRANT, REVOKE, ANALYZE, RENAME go to the database admin API
// (UpdateDatabaseDdl) and ExecContext returns when the long-running
// operation is done; its error keeps its gRPC code. DDL is not
// transactional, so it is refused in a transaction rather than leave the
// caller wondering whether it was part of it. In a DDL batch it is
// buffered until RUN BATCH. CREATE DATABASE and DROP DATABASE use
// CreateDatabase and DropDatabase in the DSN's instance; like
// go-sql-spanner, they run whatever the connection's state.

// execDDL runs a DDL statement from ExecContext or QueryContext; its
// arguments are ignored, as go-sql-spanner ignores them.
func (c *Conn) execDDL(ctx context.Context, st statement, query string) (driver.Result, error) {
	if words, _ := sqlparse.Words(st.rest); len(words) > 0 && words[0] == "DATABASE" {
		switch st.keyword {
		case "CREATE":
			return c.createDatabase(ctx, query)
		case "DROP":
			return c.dropDatabase(ctx, st.rest)
		}
	}
	c.last = lastResults{} // as go-sql-spanner: DDL leaves no commit to report
	if c.tx != nil {
		return nil, status.Errorf(codes.FailedPrecondition,
			"spannerfast: %s: DDL cannot run in a transaction (it is not transactional); end the transaction first", st.keyword)
	}
	if b := c.activeBatch(); b != nil {
		if b.kind == batchDML {
			return nil, status.Errorf(codes.FailedPrecondition,
				"spannerfast: %s: the connection has an active DML batch; run or abort it before DDL", st.keyword)
		}
		b.ddl = append(b.ddl, query)
		return driver.ResultNoRows, nil
	}
	if err := c.updateDDL(ctx, []string{query}); err != nil {
		return nil, err
	}
	return driver.ResultNoRows, nil
}

// updateDDL sends statements in one UpdateDatabaseDdl and waits for the
// operation. No statements: nothing is sent.
func (c *Conn) updateDDL(ctx context.Context, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	db := c.client.DatabasePath()
	op, err := c.client.DatabaseAdmin().UpdateDatabaseDdl(c.client.AdminContext(ctx, "database", db),
		&databasepb.UpdateDatabaseDdlRequest{Database: db, Statements: stmts})
	if err != nil {
		return err
	}
	return c.client.WaitOperation(ctx, op)
}

// createDatabase sends the whole statement as the CreateDatabase statement
// in the DSN's instance and waits for the operation.
func (c *Conn) createDatabase(ctx context.Context, query string) (driver.Result, error) {
	parent := c.cfg.InstancePath()
	op, err := c.client.DatabaseAdmin().CreateDatabase(c.client.AdminContext(ctx, "parent", parent),
		&databasepb.CreateDatabaseRequest{
			Parent:          parent,
			CreateStatement: query,
			DatabaseDialect: databasepb.DatabaseDialect(databasepb.DatabaseDialect_value[string(c.cfg.NewDatabaseDialect())]),
		})
	if err == nil {
		err = c.client.WaitOperation(ctx, op)
	}
	if err != nil {
		return nil, err
	}
	return driver.ResultNoRows, nil
}

// dropDatabase drops the database named after DROP DATABASE in the DSN's
// instance.
func (c *Conn) dropDatabase(ctx context.Context, rest string) (driver.Result, error) {
	name, err := databaseName(rest)
	if err != nil {
		return nil, err
	}
	path := c.cfg.InstancePath() + "/databases/" + name
	_, err = c.client.DatabaseAdmin().DropDatabase(c.client.AdminContext(ctx, "database", path),
		&databasepb.DropDatabaseRequest{Database: path})
	if err != nil {
		return nil, err
	}
	return driver.ResultNoRows, nil
}

// databaseName reads the database id after DROP DATABASE: a plain or
// `quoted` identifier, then nothing but an optional semicolon.
func databaseName(rest string) (string, error) {
	words, err := sqlparse.Words(rest)
	if err != nil {
		return "", err
	}
	if n := len(words); n > 0 && words[n-1] == ";" {
		words = words[:n-1]
	}
	// words[0] is DATABASE; a `quoted` name is one word, a plain one may
	// have been split at its hyphens.
	if len(words) == 2 && strings.HasPrefix(words[1], "`") {
		return strings.Trim(words[1], "`"), nil
	}
	var name strings.Builder
	for _, w := range words[1:] {
		if w != "-" && !isIdentWord(w) {
			return "", status.Errorf(codes.InvalidArgument, "spannerfast: DROP DATABASE: unexpected %q in the database name", w)
		}
		name.WriteString(w)
	}
	if name.Len() == 0 {
		return "", status.Error(codes.InvalidArgument, "spannerfast: DROP DATABASE: missing database name")
	}
	// Words upper-cases plain words; database ids are lower case.
	return strings.ToLower(name.String()), nil
}

func isIdentWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return w != ""
}
