package spannerpg

import (
	"slices"
	"testing"

	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// countZero answers every count(*) of the migrator: no such table.
func countZero(*spannerpb.ExecuteSqlRequest) *fakespanner.Result {
	return &fakespanner.Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "count", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue("0")}}},
	}}
}

// TestFakeAutoMigrateOneDDLRequest: on the wire, AutoMigrate of three
// models is one UpdateDatabaseDdl request carrying every statement in
// order (the batch on the pinned connection), and its information_schema
// queries are sent with PostgreSQL parameters ($1, $2 as p1, p2).
func TestFakeAutoMigrateOneDDLRequest(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult("POSTGRESQL"))
	s.SetFallback(countZero)
	db, err := gorm.Open(New(postgres.Config{DSN: s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true"}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { sqlDB.Close() })
	if err := db.AutoMigrate(&Band{}, &Record{}, &Song{}); err != nil {
		t.Fatal(err)
	}
	reqs := s.RequestsFor("UpdateDatabaseDdl")
	if len(reqs) != 1 {
		t.Fatalf("%d UpdateDatabaseDdl requests, want 1", len(reqs))
	}
	got := reqs[0].Message.(*databasepb.UpdateDatabaseDdlRequest).GetStatements()
	want := append(append(slices.Clone(bandDDL), recordDDL), songDDL)
	if !slices.Equal(got, want) {
		t.Fatalf("statements\n got %q\nwant %q", got, want)
	}
	var checks int
	for _, r := range s.RequestsFor("ExecuteStreamingSql") {
		q := r.ExecuteSQL()
		if q.GetSql() != dollars(hasTableSQL) {
			continue
		}
		checks++
		if p := q.GetParams().GetFields(); p["p1"].GetStringValue() != "public" || p["p2"].GetStringValue() == "" {
			t.Errorf("HasTable parameters %v", p)
		}
	}
	if checks != 3 {
		t.Errorf("%d HasTable queries, want 3", checks)
	}
}

// TestFakeSelectForUpdate: clause.Locking renders FOR UPDATE with a $1
// parameter on a PostgreSQL database and runs in its transaction
// (dialecttest.SelectForUpdate).
func TestFakeSelectForUpdate(t *testing.T) {
	dialecttest.SelectForUpdate(t, "POSTGRESQL",
		`SELECT * FROM "locked_items" WHERE "locked_items"."id" = $1 FOR UPDATE`,
		func(dsn string) (*gorm.DB, error) {
			return gorm.Open(New(postgres.Config{DSN: dsn}), &gorm.Config{Logger: logger.Discard})
		})
}
