package spannerpg

import (
	"slices"
	"testing"

	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakeAutoMigratePrepareStmt: with GORM's prepared statement pool
// (gorm.Config.PrepareStmt, or a Session with PrepareStmt) AutoMigrate is
// still one UpdateDatabaseDdl request carrying every statement: the batch
// runs on one connection of the pool under GORM's wrapper.
func TestFakeAutoMigratePrepareStmt(t *testing.T) {
	for _, c := range []struct {
		name    string
		cfg     gorm.Config
		session *gorm.Session
	}{
		{"Config", gorm.Config{PrepareStmt: true}, nil},
		{"Session", gorm.Config{}, &gorm.Session{PrepareStmt: true}},
		{"Session SkipDefaultTransaction", gorm.Config{}, &gorm.Session{PrepareStmt: true, SkipDefaultTransaction: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := fakespanner.Start(t)
			s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult("POSTGRESQL"))
			s.SetFallback(countZero)
			c.cfg.Logger = logger.Discard
			db, err := gorm.Open(New(postgres.Config{DSN: s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true"}), &c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, _ := db.DB()
			t.Cleanup(func() { sqlDB.Close() })
			if c.session != nil {
				db = db.Session(c.session)
			}
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
		})
	}
}
