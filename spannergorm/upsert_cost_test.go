package spannergorm

import (
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// rpcCount is what one GORM call cost on the wire: the statements sent
// (ExecuteSql and ExecuteStreamingSql), and every data RPC (statements,
// BeginTransaction, Commit, Rollback).
type rpcCount struct {
	statements, rpcs int
	sql              []string
}

func countRPCs(s *fakespanner.Server) rpcCount {
	var c rpcCount
	for _, r := range s.Requests() {
		switch r.Method {
		case "ExecuteSql", "ExecuteStreamingSql":
			c.statements++
			c.rpcs++
			c.sql = append(c.sql, r.ExecuteSQL().GetSql())
		case "BeginTransaction", "Commit", "Rollback", "ExecuteBatchDml":
			c.rpcs++
		}
	}
	return c
}

// TestFakeAssociationSaveCost: on the wire, creating a parent with n
// children whose keys the application sets (so they may exist) is three
// statements in one read-write transaction for any n, the parent's
// INSERT, one UPDATE of the children's foreign key and one INSERT OR
// IGNORE of the children, and one Commit: one statement (one round trip)
// more than a plain insert of the same rows (the parent and the children
// inserted in one transaction). Children with IDENTITY keys cannot
// conflict, so their Create is the plain insert
// (TestUpsertWithoutKeysIsPlainInsert).
func TestFakeAssociationSaveCost(t *testing.T) {
	s := fakespanner.Start(t)
	s.SetFallback(func(*spannerpb.ExecuteSqlRequest) *fakespanner.Result { return fakespanner.DML(1) })
	db, err := gorm.Open(New(Config{DSN: s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true"}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { sqlDB.Close() })
	measure := func(fn func() error) rpcCount {
		t.Helper()
		s.ResetRequests()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		return countRPCs(s)
	}
	batched := openBatched(t, s)
	for _, n := range []int{1, 10, 100} {
		owner := func(base int64) *Owner {
			o := &Owner{ID: base, Name: "o"}
			for i := range n {
				o.Pets = append(o.Pets, Pet{ID: base*1000 + int64(i), Name: fmt.Sprint("p", i)})
			}
			return o
		}
		assoc := measure(func() error { return db.Create(owner(1)).Error })
		plain := measure(func() error {
			o := owner(2)
			pets := o.Pets
			for i := range pets {
				pets[i].OwnerID = o.ID
			}
			return db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Omit(clause.Associations).Create(o).Error; err != nil {
					return err
				}
				return tx.Create(&pets).Error
			})
		})
		auto := measure(func() error { return batched.Create(owner(3)).Error })
		if auto.statements != 0 || auto.rpcs != 2 {
			t.Errorf("n=%d: with auto_batch_dml %+v; want one ExecuteBatchDml and the Commit", n, auto)
		}
		t.Logf("n=%d: association save with auto_batch_dml: %d RPCs", n, auto.rpcs)
		t.Logf("n=%d: association save %d statements, %d RPCs; plain insert %d statements, %d RPCs",
			n, assoc.statements, assoc.rpcs, plain.statements, plain.rpcs)
		if assoc.statements != 3 || assoc.statements != plain.statements+1 || assoc.rpcs != plain.rpcs+1 {
			t.Errorf("n=%d: association save %+v, plain %+v; want one statement and one RPC more", n, assoc, plain)
		}
		if len(assoc.sql) == 3 && (!strings.HasPrefix(assoc.sql[1], "UPDATE `pets` SET `owner_id`=@p1 WHERE `id` ") ||
			!strings.HasPrefix(assoc.sql[2], "INSERT OR IGNORE INTO `pets`")) {
			t.Errorf("n=%d: statements %q", n, assoc.sql)
		}
	}
}

// openBatched opens GORM on s with auto_batch_dml: the DML of a
// transaction is sent as one ExecuteBatchDml before the commit. The
// children's UPDATE may change no row, so the reported counts are not
// checked.
func openBatched(t *testing.T, s *fakespanner.Server) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(New(Config{DSN: s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true;auto_batch_dml=true;auto_batch_dml_update_count_verification=false"}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { sqlDB.Close() })
	return db
}
