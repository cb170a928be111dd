package bulkload

import (
	"context"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// The columns of a table's secondary indexes (key and stored columns,
// with those of the indexes that back foreign keys), counted in
// INFORMATION_SCHEMA.INDEX_COLUMNS, where each index column is a row.
// The table may be named schema.table; its schema is otherwise the
// dialect's default (” or 'public').
const (
	IndexColumnsGoogleSQL = `SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEX_COLUMNS ` +
		`WHERE LOWER(TABLE_SCHEMA) = LOWER(@schema) AND LOWER(TABLE_NAME) = LOWER(@table) AND INDEX_TYPE != 'PRIMARY_KEY'`
	IndexColumnsPostgreSQL = `SELECT COUNT(*) FROM information_schema.index_columns ` +
		`WHERE LOWER(table_schema) = LOWER($1) AND LOWER(table_name) = LOWER($2) AND index_type != 'PRIMARY_KEY'`
)

// IndexColumns returns the number of columns of table's secondary
// indexes, which each row written to it adds to the mutations Spanner
// counts.
func (h Host) IndexColumns(ctx context.Context, table string) (int64, error) {
	cfg, err := h.Client.DialectConfig(ctx, func(context.Context) (dsn.DatabaseDialect, error) {
		return "", status.Error(codes.FailedPrecondition, "spannerfast: the database's dialect is not known yet")
	})
	if err != nil {
		return 0, err
	}
	schema, name := "", table
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		schema, name = table[:i], table[i+1:]
	}
	req := &spannerpb.ExecuteSqlRequest{Sql: IndexColumnsGoogleSQL, Params: &structpb.Struct{Fields: map[string]*structpb.Value{
		"schema": structpb.NewStringValue(schema), "table": structpb.NewStringValue(name),
	}}}
	if cfg.DatabaseDialect == dsn.DialectPostgreSQL {
		if schema == "" {
			schema = "public"
		}
		req = &spannerpb.ExecuteSqlRequest{Sql: IndexColumnsPostgreSQL, Params: &structpb.Struct{Fields: map[string]*structpb.Value{
			"p1": structpb.NewStringValue(schema), "p2": structpb.NewStringValue(name),
		}}}
	}
	req.ParamTypes = map[string]*spannerpb.Type{}
	for k := range req.GetParams().GetFields() {
		req.ParamTypes[k] = &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
	}
	if req.Session, err = h.Session(ctx); err != nil {
		return 0, err
	}
	rs, err := transport.CallUnary(h.Client.SessionContext(ctx, req.Session, false), transport.Report{Tel: h.Client.Telemetry(), Method: "ExecuteSql"},
		func(ctx context.Context) (*spannerpb.ResultSet, error) {
			return h.Client.Spanner().ExecuteSql(ctx, req)
		})
	if err != nil {
		return 0, err
	}
	if len(rs.GetRows()) != 1 || len(rs.GetRows()[0].GetValues()) != 1 {
		return 0, status.Errorf(codes.Internal, "spannerfast: the count of %s's index columns came back as %v", table, rs.GetRows())
	}
	return strconv.ParseInt(rs.GetRows()[0].GetValues()[0].GetStringValue(), 10, 64)
}
