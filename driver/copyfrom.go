package driver

import (
	"context"
	"database/sql"
	"errors"
	"math"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/bulkload"
	"github.com/spannerfast/spannerfast/internal/mutationpb"
	"github.com/spannerfast/spannerfast/internal/params"
)

// CopyFromSource gives the rows of CopyFrom, as pgx.CopyFromSource does:
// Next advances to the next row (false at the end or on failure), Values
// returns its values in the order of CopyFrom's columns, Err the failure
// that ended the rows. CopyFrom converts a row's values before it calls
// Next again, so a source may reuse its slice.
type CopyFromSource = bulkload.Source

// CopyError is the error of a CopyFrom that did not write every row: which
// rows are committed, which are not, and which have an unknown outcome
// (docs/bulk-load.md). errors.As finds it; status.Code gives the code of
// the failure, which Unwrap returns.
type CopyError = bulkload.Error

// RowRange is the rows [Start, End) of a CopyFromSource, numbered from 0.
type RowRange = bulkload.Range

// CopyOption changes how CopyFrom loads.
type CopyOption func(*bulkload.Options) error

// CopyInsertOrUpdate writes rows that exist (insert-or-update mutations)
// instead of failing on them (insert, the default).
func CopyInsertOrUpdate() CopyOption {
	return func(o *bulkload.Options) error { o.Mode = bulkload.InsertOrUpdate; return nil }
}

// CopyMaxInFlight sets the most commits in flight (default 4; n >= 1). On
// the emulator, which runs one read-write transaction at a time, commits
// are sent one at a time whatever n is.
func CopyMaxInFlight(n int) CopyOption {
	return limitOption("CopyMaxInFlight", int64(n), math.MaxInt32, func(o *bulkload.Options) { o.MaxInFlight = n })
}

// CopyMaxMutations sets the most mutations of one commit, as Spanner
// counts them (default and most: 80,000).
func CopyMaxMutations(n int64) CopyOption {
	return limitOption("CopyMaxMutations", n, bulkload.SpannerMaxMutations, func(o *bulkload.Options) { o.MaxMutations = n })
}

// CopyMaxBytes sets the most bytes of one commit request (default 32 MiB;
// at most Spanner's 100 MiB).
func CopyMaxBytes(n int64) CopyOption {
	return limitOption("CopyMaxBytes", n, bulkload.SpannerMaxCommitBytes, func(o *bulkload.Options) { o.MaxBytes = n })
}

// limitOption is an option that sets a limit of 1 to most, refusing other
// values with InvalidArgument naming the option.
func limitOption(name string, n, most int64, set func(*bulkload.Options)) CopyOption {
	return func(o *bulkload.Options) error {
		if n < 1 || n > most {
			return status.Errorf(codes.InvalidArgument, "spannerfast: %s(%d): want 1 to %d", name, n, most)
		}
		set(o)
		return nil
	}
}

// CopySkip leaves out the given rows of the source (numbered from 0, in
// the order the source gives them): those an earlier load committed.
func CopySkip(rows ...RowRange) CopyOption {
	return func(o *bulkload.Options) error { o.Skip = append(o.Skip, rows...); return nil }
}

// CopyResume leaves out the rows that the failed load whose error is err
// committed (its CopyError's Committed): loading the same source again
// with it writes the rest. err must hold a *CopyError.
func CopyResume(err error) CopyOption {
	return func(o *bulkload.Options) error {
		var ce *CopyError
		if !errors.As(err, &ce) {
			return status.Errorf(codes.InvalidArgument, "spannerfast: CopyResume: %v is not a CopyFrom error", err)
		}
		o.Skip = append(o.Skip, ce.Committed...)
		return nil
	}
}

// CopyNonAtomic sends the rows with BatchWrite, in mutation groups of at
// most groupRows rows (0: 1,000) that Spanner commits independently: a
// group may fail while others of the same request commit. CopyError then
// names the rows of each group that failed.
func CopyNonAtomic(groupRows int) CopyOption {
	return func(o *bulkload.Options) error {
		if groupRows < 0 {
			return status.Errorf(codes.InvalidArgument, "spannerfast: CopyNonAtomic(%d): want 0 or more rows", groupRows)
		}
		o.NonAtomic, o.GroupRows = true, groupRows
		return nil
	}
}

// CopyFrom writes the rows of src to the columns of table on a connection
// of db, in commits that stay under Spanner's limits (80,000 mutations
// counting the table's secondary indexes, a request of at most 32 MiB),
// several in flight, and returns the number of rows committed. Each
// commit is atomic; the load as a whole is not. On failure the error is a
// *CopyError that says which rows were committed, which were not, and
// which have an unknown outcome; CopyResume loads the rest. It may not be
// called in a transaction. See docs/bulk-load.md.
func CopyFrom(ctx context.Context, db *sql.DB, table string, columns []string, src CopyFromSource, opts ...CopyOption) (int64, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return CopyFromOnConn(ctx, c, table, columns, src, opts...)
}

// CopyFromOnConn is CopyFrom on c, which must not be in a transaction.
func CopyFromOnConn(ctx context.Context, c *sql.Conn, table string, columns []string, src CopyFromSource, opts ...CopyOption) (int64, error) {
	var o bulkload.Options
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return 0, err
		}
	}
	if err := params.CheckNamesUTF8(table, columns); err != nil {
		return 0, err
	}
	var n int64
	err := withConn(c, func(sc *conn.Conn) error {
		return sc.BulkLoad(ctx, func(h bulkload.Host) error {
			var err error
			if o.IndexColumns, err = h.IndexColumns(ctx, table); err != nil {
				return err
			}
			n, err = bulkload.Load(ctx, h.Target(table, columns, &o), src, o)
			return err
		})
	})
	return n, err
}

// CopyFromRows is a CopyFromSource of rows.
func CopyFromRows(rows [][]any) CopyFromSource { return bulkload.Rows(rows) }

// CopyFromChannel is a CopyFromSource of the rows received from ch until
// it is closed. A row's slice belongs to CopyFrom once sent. A load that
// fails stops receiving, so a sender should also watch its context (or
// CopyFrom's return) rather than block on the send.
func CopyFromChannel(ch <-chan []any) CopyFromSource { return bulkload.Channel(ch) }

// CopyFromFunc is a CopyFromSource of the rows next returns until it
// returns false or an error.
func CopyFromFunc(next func() ([]any, bool, error)) CopyFromSource { return bulkload.Func(next) }

// BatchWrite sends groups in one BatchWrite request on a connection of db,
// as the official client's Client.BatchWrite does: Spanner commits each
// group atomically and independently of the others, possibly in another
// order, and answers with a status and a commit timestamp for the groups
// (by their index in groups) it has finished, which f receives in turn.
// It is not retried: a group sent twice may be applied twice. It may not
// be called in a transaction.
func BatchWrite(ctx context.Context, db *sql.DB, groups []*spanner.MutationGroup, f func(*spannerpb.BatchWriteResponse) error) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return BatchWriteOnConn(ctx, c, groups, f)
}

// BatchWriteOnConn is BatchWrite on c, which must not be in a transaction.
func BatchWriteOnConn(ctx context.Context, c *sql.Conn, groups []*spanner.MutationGroup, f func(*spannerpb.BatchWriteResponse) error) error {
	pbs := make([]*spannerpb.BatchWriteRequest_MutationGroup, len(groups))
	for i, g := range groups {
		if g == nil {
			return status.Errorf(codes.InvalidArgument, "spannerfast: BatchWrite: mutation group %d is nil", i)
		}
		ms, _, err := mutationpb.Convert(g.Mutations)
		if err == nil {
			err = params.CheckMutationsUTF8(ms) // before anything is sent
		}
		if err != nil {
			return status.Errorf(status.Code(err), "spannerfast: BatchWrite: mutation group %d: %v", i, err)
		}
		pbs[i] = &spannerpb.BatchWriteRequest_MutationGroup{Mutations: ms}
	}
	return withConn(c, func(sc *conn.Conn) error {
		return sc.BulkLoad(ctx, func(h bulkload.Host) error { return h.BatchWrite(ctx, pbs, f) })
	})
}
