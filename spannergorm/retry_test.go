package spannergorm

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/driver"
)

func abortedWithDelay(t *testing.T, d time.Duration) error {
	st, err := status.New(codes.Aborted, "aborted").
		WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(d)})
	if err != nil {
		t.Fatal(err)
	}
	return st.Err()
}

func TestRunTransactionRetriesAborted(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectBegin()
	mock.ExpectExec("DELETE FROM `items` WHERE code = ?").WithArgs("x").WillReturnResult(sqlResult(1))
	mock.ExpectCommit().WillReturnError(abortedWithDelay(t, 30*time.Millisecond))
	mock.ExpectBegin()
	mock.ExpectExec("DELETE FROM `items` WHERE code = ?").WithArgs("x").WillReturnResult(sqlResult(1))
	mock.ExpectCommit()
	calls := 0
	start := time.Now()
	err := RunTransaction(context.Background(), db, func(tx *gorm.DB) error {
		calls++
		return tx.Where("code = ?", "x").Delete(&Item{}).Error
	})
	if err != nil || calls != 2 {
		t.Fatalf("err = %v, calls = %d; want nil, 2", err, calls)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("retried after %v, before the RetryInfo delay", el)
	}
}

func TestRunTransactionReturnsOtherErrors(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectBegin()
	mock.ExpectRollback()
	boom := status.Error(codes.InvalidArgument, "bad")
	calls := 0
	err := RunTransaction(context.Background(), db, func(*gorm.DB) error { calls++; return boom })
	if !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("err = %v, calls = %d", err, calls)
	}
}

func TestRunTransactionStopsWithContext(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectBegin()
	mock.ExpectCommit().WillReturnError(abortedWithDelay(t, time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := RunTransaction(ctx, db, func(*gorm.DB) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestRetryTxOptionsDisableReplay(t *testing.T) {
	got := retryTxOptions([]*sql.TxOptions{{Isolation: sql.LevelSerializable, ReadOnly: false}})
	if want := driver.WithDisableRetryAborts(sql.LevelSerializable); got.Isolation != want {
		t.Fatalf("Isolation = %v, want %v", got.Isolation, want)
	}
	if again := retryTxOptions([]*sql.TxOptions{got}); again.Isolation != got.Isolation {
		t.Fatalf("flag added twice: %v", again.Isolation)
	}
	if d := retryTxOptions(nil); d.Isolation != driver.WithDisableRetryAborts(sql.LevelDefault) {
		t.Fatalf("default Isolation = %v", d.Isolation)
	}
}
