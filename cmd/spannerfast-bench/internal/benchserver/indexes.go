package benchserver

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// IndexColumnsSQL is driver.CopyFrom's question for the number of columns
// of a table's secondary indexes (internal/bulkload's text, which a test
// of the tool compares with this). The server answers 1: the copyfrom
// workload's table has one index of one column.
const IndexColumnsSQL = `SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEX_COLUMNS ` +
	`WHERE LOWER(TABLE_SCHEMA) = LOWER(@schema) AND LOWER(TABLE_NAME) = LOWER(@table) AND INDEX_TYPE != 'PRIMARY_KEY'`

var indexColumnsAnswer = &spannerpb.ResultSet{
	Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
	}}},
	Rows: []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue("1")}}},
}
