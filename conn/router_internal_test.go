package conn

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// TestClientRoutes: every command has exactly one way to run, and the
// kind the rest of conn classifies it by.
func TestClientRoutes(t *testing.T) {
	for cmd := sqlparse.CmdSet; int(cmd) < len(clientRoutes); cmd++ {
		r := clientRoutes[cmd]
		if (r.rows == nil) == (r.exec == nil) {
			t.Errorf("command %d: want exactly one of rows and exec", cmd)
		}
	}
	for text, want := range map[string]statementKind{
		"SET a = 1": kindClientSet, "SET LOCAL a = 1": kindClientSet, "SHOW VARIABLE a": kindClientShow,
		"RESET a": kindClientReset, "BEGIN": kindClientBegin, "COMMIT": kindClientCommit,
		"ROLLBACK": kindClientRollback, "START BATCH DDL": kindBatchStart, "RUN BATCH": kindBatchRun,
		"ABORT BATCH": kindBatchAbort, "PARTITION SELECT 1": kindPartition,
		"RUN PARTITION 'x'": kindBatchRun, "RUN PARTITIONED QUERY SELECT 1": kindBatchRun,
		"SAVEPOINT s": kindClientSet, "ROLLBACK TO s": kindClientRollback, "RELEASE s": kindClientSet,
	} {
		st, err := parseStatement(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if st.kind != want {
			t.Errorf("%s: kind %d, want %d", text, st.kind, want)
		}
		if _, ok := clientRouteOf(st); !ok {
			t.Errorf("%s: no route", text)
		}
	}
	if _, ok := clientRouteOf(statement{kind: kindQuery}); ok {
		t.Error("a query has a client route")
	}
}

// TestSavepointCommands: savepointStatement's arithmetic maps each savepoint
// command to its operation, and savepoint_support's values are the
// engine's.
func TestSavepointCommands(t *testing.T) {
	for cmd, want := range map[sqlparse.Command]txnengine.SavepointOp{
		sqlparse.CmdSavepoint: txnengine.SavepointCreate, sqlparse.CmdRollbackTo: txnengine.SavepointRollbackTo, sqlparse.CmdRelease: txnengine.SavepointRelease,
	} {
		if got := txnengine.SavepointCreate + txnengine.SavepointOp(cmd-sqlparse.CmdSavepoint); got != want {
			t.Errorf("command %d: op %d, want %d", cmd, got, want)
		}
	}
	for d, e := range map[dsn.SavepointSupport]txnengine.SavepointSupport{
		dsn.SavepointsEnabled: txnengine.SavepointsEnabled, dsn.SavepointsFailAfterRollback: txnengine.SavepointsFailAfterRollback, dsn.SavepointsDisabled: txnengine.SavepointsDisabled,
	} {
		if txnengine.SavepointSupport(d) != e {
			t.Errorf("savepoint_support %s is the engine's %s", d, e)
		}
	}
}

// TestUnroutedCommand: a command the table does not know fails instead
// of going to Spanner as SQL.
func TestUnroutedCommand(t *testing.T) {
	st := statement{keyword: "NEW", client: &sqlparse.ClientStatement{Command: sqlparse.Command(len(clientRoutes))}}
	r, ok := clientRouteOf(st)
	if !ok {
		t.Fatal("an unknown command has no route")
	}
	c := &Conn{}
	if _, err := c.execClient(context.Background(), r, st); status.Code(err) != codes.Unimplemented {
		t.Fatalf("Exec: %v, want Unimplemented", err)
	}
	if _, err := c.queryClient(context.Background(), r, st, nil, QueryOptions{}); status.Code(err) != codes.Unimplemented {
		t.Fatalf("Query: %v, want Unimplemented", err)
	}
}
