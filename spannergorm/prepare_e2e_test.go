package spannergorm_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/spannerfasttest"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// openEmbeddedWith opens GORM on a new embedded server with cfg.
func openEmbeddedWith(t *testing.T, cfg gorm.Config) *gorm.DB {
	t.Helper()
	srv, err := spannerfasttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg.Logger = logger.Discard
	db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: srv.DSN()}), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return db
}

// TestE2EPrepareStmt: with gorm.Config.PrepareStmt (GORM's prepared
// statement pool, gorm.PreparedStmtDB) AutoMigrate runs its DDL batch on
// one connection, twice (the second adds a column), and sends nothing in
// a DryRun session; CRUD, a transaction
// (gorm.PreparedStmtTX) and RunTransaction work on the same pool.
func TestE2EPrepareStmt(t *testing.T) {
	db := openEmbeddedWith(t, gorm.Config{PrepareStmt: true})
	if _, ok := db.Statement.ConnPool.(*gorm.PreparedStmtDB); !ok {
		t.Fatalf("pool %T, want *gorm.PreparedStmtDB", db.Statement.ConnPool)
	}
	// A DryRun session sends no DDL.
	if err := db.Session(&gorm.Session{DryRun: true}).AutoMigrate(&Singer{}); err != nil {
		t.Fatal(err)
	}
	if db.Migrator().HasTable(&Singer{}) {
		t.Fatal("a DryRun AutoMigrate created the table")
	}
	if err := db.AutoMigrate(&Singer{}, &Album{}); err != nil {
		t.Fatalf("first AutoMigrate: %v", err)
	}
	if err := db.AutoMigrate(&SingerV2{}, &Album{}); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	if !db.Migrator().HasColumn(&SingerV2{}, "Country") {
		t.Fatal("country column missing after the second AutoMigrate")
	}
	if stmts, err := spannergorm.MigrationStatements(db, &SingerV2{}, &Album{}); err != nil || len(stmts) != 0 {
		t.Fatalf("third migration = %q, %v; want nothing to do", stmts, err)
	}
	checkCRUD(t, db)
}

// TestE2ESessionPrepareStmt: the same in a Session with PrepareStmt on a
// pool opened without it, and with SkipDefaultTransaction.
func TestE2ESessionPrepareStmt(t *testing.T) {
	db := openEmbeddedWith(t, gorm.Config{}).Session(&gorm.Session{PrepareStmt: true, SkipDefaultTransaction: true})
	if err := db.AutoMigrate(&Singer{}, &Album{}); err != nil {
		t.Fatalf("first AutoMigrate: %v", err)
	}
	if err := db.AutoMigrate(&SingerV2{}, &Album{}); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	checkCRUD(t, db)
}

// checkCRUD creates, reads, updates and deletes through db, in and out of
// transactions, on a migrated schema.
func checkCRUD(t *testing.T, db *gorm.DB) {
	t.Helper()
	if err := db.Create(&SingerV2{Singer: Singer{ID: 1, Name: "Alice"}, Country: "NL"}).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Album{ID: 11, SingerID: 1, Title: "First"}).Error; err != nil {
			return err
		}
		return tx.Model(&SingerV2{Singer: Singer{ID: 1}}).Update("active", true).Error
	})
	if err != nil {
		t.Fatalf("Transaction: %v", err)
	}
	errStop := errors.New("stop")
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Album{ID: 12, SingerID: 1, Title: "rolled back"}).Error; err != nil {
			return err
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Transaction = %v, want the function's error", err)
	}
	err = spannergorm.RunTransaction(context.Background(), db, func(tx *gorm.DB) error {
		return tx.Model(&Album{ID: 11}).Update("title", "Renamed").Error
	})
	if err != nil {
		t.Fatalf("RunTransaction: %v", err)
	}
	var got SingerV2
	if err := db.Preload("Albums").First(&got, 1).Error; err != nil || !got.Active || got.Country != "NL" ||
		len(got.Albums) != 1 || got.Albums[0].Title != "Renamed" {
		t.Fatalf("First = %+v, %v", got, err)
	}
	if res := db.Delete(&Album{}, 11); res.Error != nil || res.RowsAffected != 1 {
		t.Fatalf("Delete: %v, %d rows", res.Error, res.RowsAffected)
	}
	var titles []string
	if err := db.Model(&Album{}).Pluck("title", &titles).Error; err != nil || len(titles) != 0 {
		t.Fatalf("titles after Delete = %q, %v", titles, err)
	}
}

// TestE2EAutoMigrateInTransaction: Spanner's DDL is not transactional, so
// AutoMigrate in a transaction (with or without PrepareStmt) is refused
// with FailedPrecondition, and the pool stays usable.
func TestE2EAutoMigrateInTransaction(t *testing.T) {
	for _, prepare := range []bool{false, true} {
		db := openEmbeddedWith(t, gorm.Config{PrepareStmt: prepare})
		err := db.Transaction(func(tx *gorm.DB) error { return tx.AutoMigrate(&Singer{}) })
		if status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("PrepareStmt=%v: AutoMigrate in a transaction: %v, want FailedPrecondition", prepare, err)
		}
		if err := db.AutoMigrate(&Singer{}); err != nil {
			t.Fatalf("PrepareStmt=%v: AutoMigrate after: %v", prepare, err)
		}
	}
}

// TestE2EPrepareStmtDMLBatch: with PrepareStmt, a DML batch (START BATCH
// DML ... RUN BATCH, as in go-gorm-spanner's batch_dml sample) runs in a
// transaction (gorm.PreparedStmtTX) and on one connection (db.Connection,
// with SkipDefaultTransaction).
func TestE2EPrepareStmtDMLBatch(t *testing.T) {
	db := openEmbeddedWith(t, gorm.Config{PrepareStmt: true})
	if err := db.AutoMigrate(&Singer{}); err != nil {
		t.Fatal(err)
	}
	for id := int64(1); id <= 4; id++ {
		if err := db.Create(&Singer{ID: id, Name: "s"}).Error; err != nil {
			t.Fatal(err)
		}
	}
	batch := func(tx *gorm.DB, ids ...int64) error {
		if err := tx.Exec("START BATCH DML").Error; err != nil {
			return err
		}
		for _, id := range ids {
			if err := tx.Model(&Singer{ID: id}).Update("active", true).Error; err != nil {
				return err
			}
		}
		return tx.Exec("RUN BATCH").Error
	}
	if err := spannergorm.RunTransaction(context.Background(), db, func(tx *gorm.DB) error { return batch(tx, 1, 2) }); err != nil {
		t.Fatalf("DML batch in a transaction: %v", err)
	}
	// Outside a transaction GORM's default transaction would begin one on
	// the connection, which a batch refuses (as go-sql-spanner does).
	if err := db.Session(&gorm.Session{SkipDefaultTransaction: true}).Connection(func(tx *gorm.DB) error {
		return batch(tx, 3)
	}); err != nil {
		t.Fatalf("DML batch on a connection: %v", err)
	}
	var active []int64
	if err := db.Model(&Singer{}).Where("active").Order("id").Pluck("id", &active).Error; err != nil ||
		len(active) != 3 || active[0] != 1 || active[2] != 3 {
		t.Fatalf("active singers %v, %v; want 1 2 3", active, err)
	}
}
