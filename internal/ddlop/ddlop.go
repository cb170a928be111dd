package ddlop

import (
	"context"
	"strings"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// Applied counts the statements of a DDL operation that were applied: its
// metadata has a commit timestamp for each, in order (0 for nil or
// metadata of another kind).
func Applied(op *longrunningpb.Operation) int {
	var md databasepb.UpdateDatabaseDdlMetadata
	if op.GetMetadata() == nil || op.GetMetadata().UnmarshalTo(&md) != nil {
		return 0
	}
	return len(md.GetCommitTimestamps())
}

// MissingSequenceKind reports Spanner's refusal of DDL that needs a
// sequence kind when the database has no default_sequence_kind.
func MissingSequenceKind(err error) bool {
	msg := status.Convert(err).Message()
	return strings.Contains(msg, "Please specify the sequence kind explicitly") && strings.Contains(msg, "default_sequence_kind")
}

// SetSequenceKind is the statement that sets kind as database's
// default_sequence_kind option, in GoogleSQL or (postgreSQL) PostgreSQL.
// The caller checked kind (letters, digits, underscores); the database id
// is quoted by the dialect's rule (sqlparse.QuoteIdent), which refuses
// an empty one.
func SetSequenceKind(postgreSQL bool, database, kind string) (string, error) {
	if postgreSQL {
		db, err := sqlparse.QuoteIdent(sqlparse.PostgreSQL, database)
		return "ALTER DATABASE " + db + " SET spanner.default_sequence_kind = '" + kind + "'", err
	}
	db, err := sqlparse.QuoteIdent(sqlparse.GoogleSQL, database)
	return "ALTER DATABASE " + db + " SET OPTIONS (default_sequence_kind = '" + kind + "')", err
}

// Send sends stmts with send, which returns the operation as last seen
// (nil when the call itself failed) and its error. When that error is the
// refusal of a missing default sequence kind, setKind is not nil, some
// statements were not applied, and setKind succeeds, those statements are
// sent again, once. It returns the last operation, and on failure how many
// statements were applied before it (at most len(stmts)).
//
// The whole of it is one UpdateDatabaseDdl operation of tel (a span, a
// child of ctx's, and its duration), which send is given the context of;
// its span records the statements and the long-running operation's name.
func Send(ctx context.Context, tel *telemetry.Telemetry, stmts []string, send func(context.Context, []string) (*longrunningpb.Operation, error), setKind func() error) (op *longrunningpb.Operation, applied int, err error) {
	ctx, top := tel.StartBatch(ctx, telemetry.UpdateDatabaseDdl, stmts)
	defer func() {
		if name := op.GetName(); name != "" {
			top.SetAttributes(telemetry.KeyDDLOperation.String(name))
		}
		top.End(err)
	}()
	op, err = send(ctx, stmts)
	if err == nil {
		return op, 0, nil
	}
	applied = min(Applied(op), len(stmts))
	if setKind == nil || !MissingSequenceKind(err) || applied == len(stmts) || setKind() != nil {
		return op, applied, err
	}
	op, err = send(ctx, stmts[applied:])
	if err != nil {
		applied = min(applied+Applied(op), len(stmts))
	}
	return op, applied, err
}

// CreateDatabase runs CREATE DATABASE (stmts: it and its extra
// statements) with run as one CreateDatabase operation of tel, a child of
// ctx's span, to the end of the wait run does for its long-running
// operation; its span records the statements as UpdateDatabaseDdl's does.
// The official client makes no span for its admin calls; the name follows
// its pattern.
func CreateDatabase[T any](ctx context.Context, tel *telemetry.Telemetry, stmts []string, run func(context.Context) (T, error)) (T, error) {
	return database(ctx, tel, telemetry.CreateDatabase, stmts, run)
}

// DropDatabase runs DROP DATABASE (stmt) with run as one DropDatabase
// operation of tel, a child of ctx's span.
func DropDatabase[T any](ctx context.Context, tel *telemetry.Telemetry, stmt string, run func(context.Context) (T, error)) (T, error) {
	return database(ctx, tel, telemetry.DropDatabase, []string{stmt}, run)
}

func database[T any](ctx context.Context, tel *telemetry.Telemetry, k telemetry.Kind, stmts []string, run func(context.Context) (T, error)) (out T, err error) {
	ctx, op := tel.StartBatch(ctx, k, stmts)
	defer op.EndErr(&err)
	return run(ctx)
}
