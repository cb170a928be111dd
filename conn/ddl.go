package conn

import (
	"context"
	"database/sql/driver"
	"strings"

	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
	if word, rest := firstWord(skipSpaceAndComments(st.rest)); word == "DATABASE" {
		switch st.keyword {
		case "CREATE":
			return c.createDatabase(ctx, query)
		case "DROP":
			return c.dropDatabase(ctx, rest)
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
			DatabaseDialect: databasepb.DatabaseDialect(databasepb.DatabaseDialect_value[string(c.cfg.DatabaseDialect)]),
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
func databaseName(s string) (string, error) {
	s = skipSpaceAndComments(s)
	var name string
	if strings.HasPrefix(s, "`") {
		end := strings.IndexByte(s[1:], '`')
		if end < 0 {
			return "", status.Error(codes.InvalidArgument, "spannerfast: DROP DATABASE: unterminated `quoted` database name")
		}
		name, s = s[1:end+1], s[end+2:]
	} else {
		end := strings.IndexAny(s, " \t\r\n\f;-#/")
		if end < 0 {
			end = len(s)
		}
		name, s = s[:end], s[end:]
	}
	if name == "" {
		return "", status.Error(codes.InvalidArgument, "spannerfast: DROP DATABASE: missing database name")
	}
	if rest := skipSpaceAndComments(s); rest != "" && rest != ";" {
		return "", status.Errorf(codes.InvalidArgument, "spannerfast: DROP DATABASE %s: unexpected text %q after the name", name, rest)
	}
	return name, nil
}
