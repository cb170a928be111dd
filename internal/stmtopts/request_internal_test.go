package stmtopts

import (
	"database/sql"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// TestRequestFromProperties: request and query options are nil while the
// properties behind them are unset (a plain statement builds none), and
// carry the properties when set.
func TestRequestFromProperties(t *testing.T) {
	cfg := &dsn.Config{}
	if o := RequestOptions(cfg, ""); o != nil {
		t.Fatalf("unset: request options %v", o)
	}
	if o := OptimizerOptions(cfg); o != nil {
		t.Fatalf("unset: query options %v", o)
	}
	if o := RequestOptions(cfg, "tag"); o.GetRequestTag() != "tag" || o.GetPriority() != spannerpb.RequestOptions_PRIORITY_UNSPECIFIED {
		t.Fatalf("tag only: %v", o)
	}
	cfg.RPCPriority, cfg.OptimizerStatisticsPackage = dsn.PriorityLow, "pkg"
	if o := RequestOptions(cfg, ""); o.GetPriority() != spannerpb.RequestOptions_PRIORITY_LOW || o.GetRequestTag() != "" {
		t.Fatalf("priority only: %v", o)
	}
	if o := OptimizerOptions(cfg); o.GetOptimizerStatisticsPackage() != "pkg" || o.GetOptimizerVersion() != "" {
		t.Fatalf("statistics package only: %v", o)
	}
}

// TestRowsOptions: a statement's RawDecode overrides raw_decode either way;
// the poison switch adds to poison_raw_buffers; the other fields come from
// the properties and the statement's options.
func TestRowsOptions(t *testing.T) {
	cfg := &dsn.Config{RawDecode: true, DecodeToNativeArrays: true, PrefetchMessages: 3}
	var q QueryOptions
	if ro := q.RowsOptions(cfg, false); !ro.Decode.Raw || !ro.Decode.NativeArrays || ro.Prefetch != 3 || ro.Poison || ro.Proto || ro.KeepMetadata {
		t.Fatalf("connection's options: %+v", ro)
	}
	off := false
	q = QueryOptions{RawDecode: &off, Proto: true, ReturnMetadata: true}
	if ro := q.RowsOptions(cfg, true); ro.Decode.Raw || !ro.Poison || !ro.Proto || !ro.KeepMetadata {
		t.Fatalf("statement's options: %+v", ro)
	}
	cfg.RawDecode, cfg.PoisonRawBuffers = false, true
	on := true
	q = QueryOptions{RawDecode: &on}
	if ro := q.RowsOptions(cfg, false); !ro.Decode.Raw || !ro.Poison {
		t.Fatalf("raw on for one statement: %+v", ro)
	}
}

// TestIsolation: database/sql's levels map onto Spanner's (Snapshot is
// REPEATABLE_READ), the others are refused with InvalidArgument; the parsed
// ISOLATION LEVEL options name database/sql's levels.
func TestIsolation(t *testing.T) {
	for l, want := range map[sql.IsolationLevel]spannerpb.TransactionOptions_IsolationLevel{
		sql.LevelDefault:        spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED,
		sql.LevelSerializable:   spannerpb.TransactionOptions_SERIALIZABLE,
		sql.LevelRepeatableRead: spannerpb.TransactionOptions_REPEATABLE_READ,
		sql.LevelSnapshot:       spannerpb.TransactionOptions_REPEATABLE_READ,
	} {
		if got, err := IsolationOf(l); err != nil || got != want {
			t.Errorf("%v: %v, %v; want %v", l, got, err, want)
		}
	}
	if _, err := IsolationOf(sql.LevelLinearizable); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Linearizable: %v, want InvalidArgument", err)
	}
	for i, want := range map[sqlparse.Isolation]sql.IsolationLevel{
		sqlparse.IsolationDefault:        sql.LevelDefault,
		sqlparse.IsolationSerializable:   sql.LevelSerializable,
		sqlparse.IsolationRepeatableRead: sql.LevelRepeatableRead,
	} {
		if got := IsolationLevelOf(i); got != want {
			t.Errorf("parsed %d: %v, want %v", i, got, want)
		}
	}
}
