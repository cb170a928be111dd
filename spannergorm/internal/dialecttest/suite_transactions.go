package dialecttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
)

// transactions: writes of a transaction are visible inside it and gone
// after a rollback on the server: a Transaction whose function returns an
// error, one whose statement fails (the error keeps its gRPC code), and a
// manual Begin ... Rollback; Begin ... Commit keeps them.
func transactions(t *testing.T, db *gorm.DB) {
	keep := Account{Name: "keep", Balance: 10}
	must(t, db.Create(&keep).Error)
	count := func(name string) int64 {
		t.Helper()
		var n int64
		must(t, db.Model(&Account{}).Where("name = ?", name).Count(&n).Error)
		return n
	}
	stop := errors.New("stop")
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{Name: "gone"}).Error; err != nil {
			return err
		}
		if err := tx.Model(&keep).Update("balance", 99).Error; err != nil {
			return err
		}
		var inside Account
		if err := tx.First(&inside, keep.ID).Error; err != nil || inside.Balance != 99 {
			return fmt.Errorf("inside the transaction: %+v, %v", inside, err)
		}
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Transaction = %v, want the function's error", err)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{Name: "gone"}).Error; err != nil {
			return err
		}
		return tx.Create(&Account{ID: keep.ID, Name: "dup"}).Error
	})
	if status.Code(err) != codes.AlreadyExists {
		t.Fatalf("Transaction with a duplicate key: %v, want AlreadyExists", err)
	}
	tx := db.Begin()
	must(t, tx.Error)
	must(t, tx.Create(&Account{Name: "gone"}).Error)
	must(t, tx.Model(&keep).Update("balance", gorm.Expr("balance + ?", 5)).Error)
	if err := tx.Create(&Account{Name: strings.Repeat("x", 50)}).Error; err == nil {
		t.Fatal("a name longer than its column was written")
	}
	must(t, tx.Rollback().Error)
	if n := count("gone"); n != 0 {
		t.Fatalf("%d rolled-back rows visible", n)
	}
	var after Account
	must(t, db.First(&after, keep.ID).Error)
	if after.Balance != 10 {
		t.Fatalf("balance after the rollbacks %d, want 10", after.Balance)
	}
	tx = db.Begin()
	must(t, tx.Create(&Account{Name: "committed"}).Error)
	must(t, tx.Model(&keep).Update("balance", gorm.Expr("balance + ?", 5)).Error)
	must(t, tx.Commit().Error)
	must(t, db.First(&after, keep.ID).Error)
	if n := count("committed"); n != 1 || after.Balance != 15 {
		t.Fatalf("after Commit: %d rows, balance %d", n, after.Balance)
	}
}

// runTransactionAborts: go-gorm-spanner's aborted-transaction pattern on
// a real engine. The first RunTransaction reads a row; inside it, a
// second RunTransaction reads and updates the same row and commits; the
// engine aborts the first (on the emulator, the newer transaction wins),
// whose whole function runs again and sees the second's write. Both
// updates are kept, once each.
func runTransactionAborts(t *testing.T, d Dialect, db *gorm.DB) {
	acc := Account{Name: "start"}
	must(t, db.Create(&acc).Error)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var first, second int
	appendName := func(tx *gorm.DB, suffix string) error {
		var a Account
		if err := tx.First(&a, acc.ID).Error; err != nil {
			return err
		}
		return tx.Model(&a).Update("name", a.Name+suffix).Error
	}
	err := d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		first++
		var a Account
		if err := tx.First(&a, acc.ID).Error; err != nil {
			return err
		}
		if first == 1 {
			if err := d.RunTransaction(ctx, db, func(tx2 *gorm.DB) error {
				second++
				return appendName(tx2, " second")
			}); err != nil {
				return fmt.Errorf("second transaction: %w", err)
			}
		}
		return tx.Model(&a).Update("name", a.Name+" first").Error
	})
	if err != nil {
		t.Fatalf("RunTransaction: %v", err)
	}
	// The emulator aborts the newcomer or, at random, the holder; the
	// first has read the row the second changed, so it must run again.
	if first < 2 || second < 1 {
		t.Errorf("attempts: first %d, second %d; want the first at least twice", first, second)
	}
	wantName(t, db, &Account{}, acc.ID, "name", "start second first")
}

// batches: CreateInBatches writes every row in batches and fills their
// IDENTITY keys; FindInBatches visits them in batches and updates each
// batch; a DML batch (START BATCH DML ... RUN BATCH) in RunTransaction
// and on one connection applies every statement; one with a failing
// statement, or ended with ABORT BATCH, applies none.
func batches(t *testing.T, d Dialect, db *gorm.DB) {
	items := make([]Item, 25)
	for i := range items {
		items[i].N = int64(i)
	}
	res := db.CreateInBatches(&items, 10)
	must(t, res.Error)
	if res.RowsAffected != 25 {
		t.Fatalf("CreateInBatches: %d rows", res.RowsAffected)
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.ID
		if it.ID <= 0 || slices.Index(ids[:i], it.ID) >= 0 {
			t.Fatalf("keys after CreateInBatches: %v", ids[:i+1])
		}
	}
	var sizes []int
	var found []Item
	must(t, db.FindInBatches(&found, 10, func(tx *gorm.DB, _ int) error {
		sizes = append(sizes, len(found))
		for i := range found {
			found[i].Done = true
		}
		return tx.Save(&found).Error
	}).Error)
	if !slices.Equal(sizes, []int{10, 10, 5}) {
		t.Fatalf("FindInBatches batch sizes %v", sizes)
	}
	var done int64
	must(t, db.Model(&Item{}).Where("done").Count(&done).Error)
	if done != 25 {
		t.Fatalf("%d items done after FindInBatches", done)
	}

	setN := func(tx *gorm.DB, n int64, ids ...int64) error {
		for _, id := range ids {
			if err := tx.Model(&Item{ID: id}).Update("n", n).Error; err != nil {
				return err
			}
		}
		return nil
	}
	batch := func(tx *gorm.DB, end string, fn func(*gorm.DB) error) error {
		if err := tx.Exec("START BATCH DML").Error; err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Exec(end).Error
	}
	nOf := func(id int64) int64 {
		t.Helper()
		var it Item
		must(t, db.First(&it, id).Error)
		return it.N
	}
	ctx := context.Background()
	must(t, d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		return batch(tx, "RUN BATCH", func(tx *gorm.DB) error { return setN(tx, 100, ids[0], ids[1], ids[2]) })
	}))
	if nOf(ids[0]) != 100 || nOf(ids[2]) != 100 {
		t.Fatal("the DML batch in RunTransaction was not applied")
	}
	must(t, db.Session(&gorm.Session{SkipDefaultTransaction: true}).Connection(func(tx *gorm.DB) error {
		// Connection hands fc a handle whose conditions accumulate from
		// one statement to the next (Transaction's do not): a Session of
		// it starts each statement afresh on the same connection.
		return batch(tx.Session(&gorm.Session{}), "RUN BATCH", func(tx *gorm.DB) error { return setN(tx, 200, ids[3], ids[4]) })
	}))
	if nOf(ids[3]) != 200 || nOf(ids[4]) != 200 {
		t.Fatal("the DML batch on a connection was not applied")
	}
	err := d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		return batch(tx, "RUN BATCH", func(tx *gorm.DB) error {
			if err := setN(tx, 300, ids[5]); err != nil {
				return err
			}
			return tx.Exec("INSERT INTO items (id, n, done) VALUES (?, 0, false)", ids[6]).Error
		})
	})
	if status.Code(err) != codes.AlreadyExists {
		t.Fatalf("DML batch with a duplicate key: %v, want AlreadyExists", err)
	}
	if nOf(ids[5]) == 300 {
		t.Fatal("a statement of the failed batch was applied")
	}
	must(t, d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		return batch(tx, "ABORT BATCH", func(tx *gorm.DB) error { return setN(tx, 400, ids[7]) })
	}))
	if nOf(ids[7]) == 400 {
		t.Fatal("a statement of an aborted batch was applied")
	}
}
