package dialecttest

import (
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// LockedItem is the model SelectForUpdate locks a row of.
type LockedItem struct {
	ID int64
	N  int64
}

// SelectForUpdate: GORM's locking clause (the documentation's
// db.Clauses(clause.Locking{Strength: "UPDATE"})) reaches Spanner as query,
// the dialect's SELECT ... FOR UPDATE with the key as parameter p1, inside
// the read-write transaction it was given (the query begins it inline),
// which commits once. It runs on the fake server, which open connects a
// GORM database of dialect ("GOOGLE_STANDARD_SQL" or "POSTGRESQL") to,
// because the emulator refuses FOR UPDATE.
func SelectForUpdate(t *testing.T, dialect, query string, open func(dsn string) (*gorm.DB, error)) {
	s := fakespanner.Start(t)
	s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult(dialect))
	s.AddResult(query, &fakespanner.Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "id", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
			{Name: "n", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue("1"), structpb.NewStringValue("7")}}},
	}})
	db, err := open(s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true")
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sqlDB.Close() })

	var item LockedItem
	err = db.Transaction(func(tx *gorm.DB) error {
		return tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).Find(&item, 1).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	if item != (LockedItem{ID: 1, N: 7}) {
		t.Errorf("read %+v, want {ID:1 N:7}", item)
	}
	var locked []*spannerpb.ExecuteSqlRequest
	for _, r := range s.RequestsFor("ExecuteStreamingSql") {
		if q := r.ExecuteSQL(); q.GetSql() == query {
			locked = append(locked, q)
		}
	}
	if len(locked) != 1 {
		t.Fatalf("%d requests with %q, want 1", len(locked), query)
	}
	if locked[0].GetTransaction().GetBegin().GetReadWrite() == nil {
		t.Errorf("the locking read's transaction selector is %v, want an inline read-write begin", locked[0].GetTransaction())
	}
	if got := locked[0].GetParams().GetFields()["p1"].GetStringValue(); got != "1" {
		t.Errorf("p1 = %q, want \"1\"", got)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Errorf("%d Commits, want 1", n)
	}
}
