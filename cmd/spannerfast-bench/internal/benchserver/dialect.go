package benchserver

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// DialectQuery is the query a spannerfast connector (like go-sql-spanner's)
// sends once, on its first connection, to learn the database's dialect. A
// real database answers it, so the server does too, or the driver arms
// could not connect; it runs during an arm's warm-up, never in a measured
// round.
const DialectQuery = "select option_value from information_schema.database_options where option_name='database_dialect'"

// dialectAnswer is the one message answering DialectQuery: a GoogleSQL
// database.
func dialectAnswer() ([]workload.Message, error) {
	prs := &spannerpb.PartialResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "option_value", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}},
		}}},
		Values: []*structpb.Value{structpb.NewStringValue("GOOGLE_STANDARD_SQL")},
		Last:   true,
	}
	b, err := proto.Marshal(prs)
	if err != nil {
		return nil, err
	}
	return []workload.Message{{Body: b}}, nil
}
