package dialecttest

import (
	"errors"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
)

// nestedTransactions: GORM's nested transactions, as GORM documents them,
// on the driver's savepoints (docs/transactions.md#savepoints): an inner
// Transaction whose function fails is rolled back to its savepoint and the
// outer work stays; an inner one that succeeds is committed with the
// outer; nesting goes deeper; an outer rollback takes the committed inner
// work with it; an inner statement that fails is undone too. The keys are
// given: a row whose key Spanner generated (an IDENTITY column) comes back
// with another key when the statements before the savepoint are replayed,
// which the last case shows fails the transaction with code Aborted.
func nestedTransactions(t *testing.T, db *gorm.DB) {
	ids := func() []int64 {
		t.Helper()
		var out []int64
		must(t, db.Model(&Account{}).Where("id >= ? AND id < ?", 9000, 9100).Order("id").Pluck("id", &out).Error)
		return out
	}
	create := func(tx *gorm.DB, id int64) error {
		return tx.Create(&Account{ID: id, Name: "nested"}).Error
	}
	stop := errors.New("stop")
	err := db.Transaction(func(tx *gorm.DB) error {
		must(t, create(tx, 9001))
		if err := tx.Transaction(func(tx2 *gorm.DB) error {
			must(t, create(tx2, 9002))
			return stop // rolls 9002 back
		}); !errors.Is(err, stop) {
			t.Fatalf("inner Transaction = %v, want its function's error", err)
		}
		must(t, tx.Transaction(func(tx3 *gorm.DB) error { return create(tx3, 9003) }))
		must(t, tx.Transaction(func(tx4 *gorm.DB) error {
			must(t, create(tx4, 9004))
			_ = tx4.Transaction(func(tx5 *gorm.DB) error {
				must(t, create(tx5, 9005))
				return stop
			})
			// A statement that fails in a nested transaction: undone with it.
			err := tx4.Transaction(func(tx6 *gorm.DB) error { return create(tx6, 9001) })
			if status.Code(err) != codes.AlreadyExists {
				t.Errorf("duplicate key in a nested transaction: %v, want AlreadyExists", err)
			}
			return nil
		}))
		var inside int64
		must(t, tx.Model(&Account{}).Where("id >= ? AND id < ?", 9000, 9100).Count(&inside).Error)
		if inside != 3 {
			t.Errorf("inside the outer transaction %d rows, want 3", inside)
		}
		return nil
	})
	must(t, err)
	if got := ids(); !slices.Equal(got, []int64{9001, 9003, 9004}) {
		t.Fatalf("after the nested transactions: ids %v, want [9001 9003 9004]", got)
	}

	err = db.Transaction(func(tx *gorm.DB) error {
		must(t, create(tx, 9010))
		must(t, tx.Transaction(func(tx2 *gorm.DB) error { return create(tx2, 9011) }))
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("outer Transaction = %v, want its function's error", err)
	}
	if got := ids(); !slices.Equal(got, []int64{9001, 9003, 9004}) {
		t.Fatalf("after an outer rollback: ids %v, want [9001 9003 9004]", got)
	}

	// A generated key before the savepoint: the replay's INSERT returns
	// another key, so rolling back cannot restore the transaction.
	err = db.Transaction(func(tx *gorm.DB) error {
		must(t, tx.Create(&Account{Name: "generated"}).Error)
		_ = tx.Transaction(func(tx2 *gorm.DB) error {
			must(t, create(tx2, 9020))
			return stop
		})
		return nil
	})
	if status.Code(err) != codes.Aborted {
		t.Fatalf("rollback to a savepoint after a generated key: %v, want Aborted", err)
	}
	var n int64
	must(t, db.Model(&Account{}).Where("name = ?", "generated").Count(&n).Error)
	if n != 0 {
		t.Fatalf("%d rows of the failed transaction committed", n)
	}
}
