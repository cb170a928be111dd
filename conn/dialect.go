package conn

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/internal/transport"
	"github.com/spannerfast/spannerfast/rows"
)

// DialectQuery is the query that asks the database for its dialect,
// go-sql-spanner's text to the letter: servers that stand in for Spanner in
// go-sql-spanner's tests answer this exact text (and keep it out of the
// requests they record), so the driver is tested there as go-sql-spanner is.
const DialectQuery = "select option_value from information_schema.database_options where option_name='database_dialect'"

// strongSingleUse is the transaction of the dialect query: a single-use
// strong read, as the official client's Single().Query.
var strongSingleUse = &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_SingleUse{
	SingleUse: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{
		ReadOnly: &spannerpb.TransactionOptions_ReadOnly{TimestampBound: &spannerpb.TransactionOptions_ReadOnly_Strong{Strong: true}},
	}},
}}

// Open returns a new connection on client that parses through statements
// (see New), once the database's dialect is known: the client learns it
// the first time (transport.Client.DialectConfig; this connection asks the
// database unless the DSN gives database_dialect) and keeps it. The
// connection's properties start at the DSN's values with that dialect
// (SHOW VARIABLE database_dialect; connection_state_type DEFAULT follows
// it). connect_timeout bounds the detection. A failed detection fails
// Open with the server's error and gRPC code; the next Open asks again.
func Open(ctx context.Context, client *transport.Client, statements *sqlparse.Cache) (*Conn, error) {
	c := New(client, statements)
	if t := client.Config().ConnectTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	cfg, err := client.DialectConfig(ctx, c.detectDialect)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	c.state = connstate.New(cfg)
	return c, nil
}

// detectDialect runs DialectQuery on the connection's session and reads
// its one value.
func (c *Conn) detectDialect(ctx context.Context) (dsn.DatabaseDialect, error) {
	session, err := c.session(ctx)
	if err != nil {
		return "", err
	}
	req := &spannerpb.ExecuteSqlRequest{Session: session, Sql: DialectQuery, Transaction: strongSingleUse}
	r, err := c.stream(ctx, req, false, rows.Options{})
	if err != nil {
		return "", fmt.Errorf("spannerfast: reading the database's dialect: %w", err)
	}
	defer r.Close()
	dest := make([]driver.Value, 1)
	if err := r.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			return "", errors.New("spannerfast: reading the database's dialect: the database reported none")
		}
		return "", fmt.Errorf("spannerfast: reading the database's dialect: %w", err)
	}
	name, ok := dest[0].(string)
	if !ok {
		return "", fmt.Errorf("spannerfast: reading the database's dialect: got %T, want a string", dest[0])
	}
	switch err := r.Next(dest); {
	case err == nil:
		return "", errors.New("spannerfast: reading the database's dialect: the database reported more than one")
	case !errors.Is(err, io.EOF):
		return "", fmt.Errorf("spannerfast: reading the database's dialect: %w", err)
	}
	return dsn.DatabaseDialect(name), nil
}
