package conn

import (
	"context"
	"database/sql/driver"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/internal/bulkload"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
)

// BulkLoad runs load (driver.CopyFrom, BatchWrite) outside a transaction, at the emulator's
// gate as Apply, with Apply's at-least-once commit (internal/bulkload: no row is written twice).
func (c *Conn) BulkLoad(ctx context.Context, load func(h bulkload.Host) error) error {
	if c.closed {
		return driver.ErrBadConn
	} else if c.tx != nil {
		return failedPrecondition("CopyFrom and BatchWrite may not be called while the connection is in a transaction")
	} else if err := c.enterReadWrite(ctx); err != nil {
		return err
	}
	defer c.leaveReadWrite()
	return load(bulkload.Host{Client: c.client, Session: c.session, Commit: func(ctx context.Context, ms []*spannerpb.Mutation) error {
		session, err := c.session(ctx)
		if err == nil {
			_, err = c.applyAtLeastOnce(ctx, session, stmtopts.ApplyOptions{}, ms)
		}
		return err
	}})
}
