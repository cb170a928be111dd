package bulkload

import (
	"context"
	"errors"
	"io"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/internal/transport"
)

// Host is what a connection gives a load (conn.BulkLoad): its client, its
// session and its commit.
type Host struct {
	Client *transport.Client
	// Session returns the session of the connection's requests.
	Session func(ctx context.Context) (string, error)
	// Commit commits ms in a single-use read-write transaction, as Apply
	// with ApplyAtLeastOnce does.
	Commit func(ctx context.Context, ms []*spannerpb.Mutation) error
}

// Target returns the target of a load of cols into table through h. On
// the emulator, which runs one read-write transaction per database at a
// time, o's commits are sent one at a time.
func (h Host) Target(table string, cols []string, o *Options) Target {
	if h.Client.OnEmulator() {
		o.MaxInFlight = 1
	}
	return Target{
		Table:   table,
		Columns: cols,
		Commit: func(ctx context.Context, m *spannerpb.Mutation) error {
			return h.Commit(ctx, []*spannerpb.Mutation{m})
		},
		BatchWrite: h.BatchWrite,
	}
}

// BatchWrite sends groups in one BatchWrite call, as the official client's
// Client.BatchWrite does (each group is committed or refused on its own;
// the call is not retried, as a resent group may be applied twice), and
// gives each response to each. Responses name groups by their index in
// groups.
func (h Host) BatchWrite(ctx context.Context, groups []*spannerpb.BatchWriteRequest_MutationGroup, each func(*spannerpb.BatchWriteResponse) error) error {
	session, err := h.Session(ctx)
	if err != nil {
		return err
	}
	return h.batchWrite(ctx, &spannerpb.BatchWriteRequest{Session: session, MutationGroups: groups}, each)
}

func (h Host) batchWrite(ctx context.Context, req *spannerpb.BatchWriteRequest, each func(*spannerpb.BatchWriteResponse) error) error {
	ctx, cancel := context.WithCancel(h.Client.SessionContext(ctx, req.GetSession(), true))
	defer cancel()
	stream, err := h.Client.Spanner().BatchWrite(ctx, req)
	if err != nil {
		return err
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := each(resp); err != nil {
			return err
		}
	}
}
