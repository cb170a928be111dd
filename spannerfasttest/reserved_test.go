package spannerfasttest

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
)

// Reserved keywords are identifiers only when quoted, as on Spanner.
func TestReservedKeywordsMustBeQuoted(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	for _, ddl := range []string{
		"CREATE TABLE R1 (Id INT64 NOT NULL, AS STRING(MAX)) PRIMARY KEY (Id)",
		"CREATE TABLE ALL (Id INT64 NOT NULL) PRIMARY KEY (Id)",
		"CREATE INDEX AT ON T (b)",
		"ALTER TABLE T ADD COLUMN at ARRAY<TIMESTAMP>",
	} {
		err := r.srv.CreateTables(ctx, ddl)
		wantCode(t, err, codes.InvalidArgument, "reserved keyword")
	}
	if err := r.srv.CreateTables(ctx, "CREATE TABLE R (Id INT64 NOT NULL, `AS` STRING(MAX), `at` INT64) PRIMARY KEY (Id)"); err != nil {
		t.Fatalf("quoted reserved words: %v", err)
	}
	r.mustExec("INSERT INTO R (Id, `AS`, `at`) VALUES (1, 'x', 2)", 1, nil, nil)
	_, err := r.exec("UPDATE R SET at = 3 WHERE Id = 1", nil, nil)
	wantCode(t, err, codes.InvalidArgument)
	r.wantRows("SELECT `AS`, `at` FROM R", "x,2")
	_, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "SELECT b AS at FROM T"})
	wantCode(t, err, codes.InvalidArgument, "AT")
	r.wantRows("SELECT Id AS `at` FROM R", "1")
}
