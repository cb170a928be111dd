package fakespanner

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// DialectQuery is the query a connector sends on its first connection to
// learn the database's dialect (go-sql-spanner's text, which spannerfast
// sends too). The server answers it from the Result registered for it,
// DialectResult("GOOGLE_STANDARD_SQL") unless a test registers another
// (a PostgreSQL answer, or one whose Faults fail it). Like the mock server
// of go-sql-spanner's tests, it keeps this query out of Requests, method
// faults and StreamOutcomes, so tests about other requests need not know
// of it; DialectQueries counts it.
const DialectQuery = "select option_value from information_schema.database_options where option_name='database_dialect'"

// DialectResult is the answer to DialectQuery for a database of dialect
// ("GOOGLE_STANDARD_SQL" or "POSTGRESQL"): one STRING column, one row.
func DialectResult(dialect string) *Result {
	return &Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "option_value", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue(dialect)}}},
	}}
}

// DialectQueries returns how many DialectQuery streams the server received.
func (s *Server) DialectQueries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dialectAsked
}

func (s *Server) noteDialectQuery() {
	s.mu.Lock()
	s.dialectAsked++
	s.mu.Unlock()
}

// isDialectQuery reports whether the first message of a stream of method
// is DialectQuery.
func isDialectQuery(method string, m any) bool {
	req, ok := m.(*spannerpb.ExecuteSqlRequest)
	return ok && method == "ExecuteStreamingSql" && req.GetSql() == DialectQuery
}
