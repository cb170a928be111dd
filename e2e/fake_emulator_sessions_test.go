package e2e

import (
	"context"
	"database/sql"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Sessions on and off the emulator, seen on the fake server. Off the
// emulator every connection shares the connector's one multiplexed session
// (nothing of the emulator support runs); on the emulator
// (SPANNER_EMULATOR_HOST names the endpoint, or auto_config_emulator) each
// connection has a regular session of its own, deleted when it closes.

const emuUpdate = "UPDATE T SET V = V + 1 WHERE K = 1"

// perConn is how many query, DML and Commit requests useThreeConnections
// sends per connection: the query, then DML and Commit twice.
const perConn = 5

// useThreeConnections runs a query, a read-write transaction and autocommit
// DML on each of three connections held at the same time, then closes db.
func useThreeConnections(t *testing.T, srv *fakespanner.Server, db *sql.DB) {
	t.Helper()
	srv.AddResult("SELECT 1", fakespanner.Select1())
	srv.AddResult(emuUpdate, fakespanner.DML(1))
	ctx := context.Background()
	var conns []*sql.Conn
	for range 3 {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		var one int64
		if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatal(err)
		}
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, emuUpdate); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, emuUpdate); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range conns {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// sessionsUsed returns the session of every query, DML and Commit request,
// in order.
func sessionsUsed(srv *fakespanner.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		switch m := r.Message.(type) {
		case *spannerpb.ExecuteSqlRequest:
			out = append(out, m.GetSession())
		case *spannerpb.CommitRequest:
			out = append(out, m.GetSession())
		}
	}
	return out
}

func TestFakeNotEmulatorSharesOneMultiplexedSession(t *testing.T) {
	t.Setenv("SPANNER_EMULATOR_HOST", "")
	srv := fakespanner.Start(t)
	srv.SetRecording(true)
	useThreeConnections(t, srv, openFake(t, srv))

	creates := srv.RequestsFor("CreateSession")
	if len(creates) != 1 {
		t.Fatalf("%d CreateSession requests, want 1", len(creates))
	}
	if !creates[0].Message.(*spannerpb.CreateSessionRequest).GetSession().GetMultiplexed() {
		t.Error("the session is not multiplexed")
	}
	used := sessionsUsed(srv)
	if len(used) != 3*perConn {
		t.Fatalf("%d query, DML and Commit requests, want %d", len(used), 3*perConn)
	}
	for i, s := range used {
		if s != used[0] {
			t.Errorf("request %d on session %s, want the one session %s", i, s, used[0])
		}
	}
	if n := len(srv.RequestsFor("DeleteSession")); n != 0 {
		t.Errorf("%d DeleteSession requests, want none", n)
	}
}

func TestFakeEmulatorSessionPerConnection(t *testing.T) {
	// The DSN names no endpoint: SPANNER_EMULATOR_HOST gives it. (The
	// fake server has no GetDatabase for auto_config_emulator; the
	// emulator tests use that property.)
	srv := fakespanner.Start(t)
	t.Setenv("SPANNER_EMULATOR_HOST", srv.Addr())
	db, err := sql.Open("spannerfast", fakeDB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv.SetRecording(true)
	useThreeConnections(t, srv, db)

	created := map[string]bool{}
	for _, r := range srv.RequestsFor("CreateSession") {
		if r.Message.(*spannerpb.CreateSessionRequest).GetSession().GetMultiplexed() {
			t.Error("a multiplexed session was created on the emulator")
		}
	}
	if n := len(srv.RequestsFor("CreateSession")); n != 3 {
		t.Fatalf("%d CreateSession requests, want 3 (one per connection)", n)
	}
	used := sessionsUsed(srv)
	if len(used) != 3*perConn {
		t.Fatalf("%d query, DML and Commit requests, want %d", len(used), 3*perConn)
	}
	// Each connection's requests went to one session, and no two
	// connections shared one.
	for i := 0; i < len(used); i += perConn {
		for _, s := range used[i : i+perConn] {
			if s != used[i] {
				t.Errorf("connection %d used sessions %s and %s", i/perConn, used[i], s)
			}
		}
		if created[used[i]] {
			t.Errorf("session %s used by two connections", used[i])
		}
		created[used[i]] = true
	}
	deleted := map[string]bool{}
	for _, r := range srv.RequestsFor("DeleteSession") {
		deleted[r.Message.(*spannerpb.DeleteSessionRequest).GetName()] = true
	}
	for s := range created {
		if !deleted[s] {
			t.Errorf("session %s was not deleted when its connection closed", s)
		}
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Errorf("%d sessions left on the server", n)
	}
}
