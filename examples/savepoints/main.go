// Command savepoints uses savepoints through spannerfast: SAVEPOINT,
// ROLLBACK TO and RELEASE as SQL statements, the same through the Go API
// (driver.SavepointConn), and a GORM nested transaction, which GORM runs
// on savepoints.
//
//	go run ./examples/savepoints
//
// Spanner has no savepoints: the driver emulates them. ROLLBACK TO rolls
// the Spanner transaction back and replays the statements made before the
// savepoint in a new one (docs/transactions.md#savepoints).
//
// It starts the embedded server (spannerfasttest) in-process, or uses a new
// database on the emulator when SPANNER_EMULATOR_HOST is set.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	spannerdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// Account is the GORM model of the Accounts table. Keys are chosen by the
// application: a key Spanner generates would come back different when the
// statements before a savepoint are replayed, and ROLLBACK TO would fail.
type Account struct {
	ID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Owner string
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	target, err := embedded.ForExample("savepoints")
	if err != nil {
		return err
	}
	defer target.Close()
	fmt.Fprintln(w, "running on", target)
	db, err := sql.Open("spannerfast", target.DSN())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE accounts (id INT64 NOT NULL, owner STRING(MAX)) PRIMARY KEY (id)"); err != nil {
		return err
	}
	if err := statements(ctx, db, w); err != nil {
		return fmt.Errorf("statements: %w", err)
	}
	if err := goAPI(ctx, db, w); err != nil {
		return fmt.Errorf("Go API: %w", err)
	}
	if err := nestedGORM(ctx, target.DSN(), w); err != nil {
		return fmt.Errorf("GORM: %w", err)
	}
	return printOwners(ctx, db, w, "at the end")
}

// statements: SAVEPOINT, ROLLBACK TO and RELEASE in a transaction. The
// statements are client-side: run them on the transaction (or on one
// *sql.Conn), like BEGIN and COMMIT.
func statements(ctx context.Context, db *sql.DB, w io.Writer) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range []string{
		"INSERT INTO accounts (id, owner) VALUES (1, 'alice')",
		"SAVEPOINT before_bob",
		"INSERT INTO accounts (id, owner) VALUES (2, 'bob')",
		"ROLLBACK TO SAVEPOINT before_bob", // bob is gone, alice stays
		"INSERT INTO accounts (id, owner) VALUES (3, 'carol')",
		"SAVEPOINT after_carol",
		"INSERT INTO accounts (id, owner) VALUES (4, 'dave')",
		"RELEASE SAVEPOINT after_carol", // dave stays
	} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return printOwners(ctx, db, w, "after the statements")
}

// goAPI: the same through sql.Conn.Raw and driver.SavepointConn.
func goAPI(ctx context.Context, db *sql.DB, w io.Writer) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	sp := func(f func(spannerdriver.SavepointConn) error) error {
		return c.Raw(func(dc any) error { return f(dc.(spannerdriver.SavepointConn)) })
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET owner = 'Alice' WHERE id = 1"); err != nil {
		return err
	}
	if err := sp(func(s spannerdriver.SavepointConn) error { return s.Savepoint(ctx, "cleanup") }); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM accounts WHERE true"); err != nil {
		return err
	}
	if err := sp(func(s spannerdriver.SavepointConn) error { return s.RollbackToSavepoint(ctx, "cleanup") }); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return printOwners(ctx, db, w, "after the Go API")
}

// nestedGORM: GORM's nested transactions. A failed inner transaction is
// rolled back to its savepoint and the outer work stays; a successful one
// commits with the outer.
func nestedGORM(ctx context.Context, dsn string, w io.Writer) error {
	gdb, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: dsn}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	if sqlDB, err := gdb.DB(); err == nil {
		defer sqlDB.Close()
	}
	gdb = gdb.WithContext(ctx)
	errNoErin := errors.New("erin changed her mind")
	err = gdb.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{ID: 5, Owner: "erin"}).Error; err != nil {
			return err
		}
		inner := tx.Transaction(func(tx2 *gorm.DB) error {
			if err := tx2.Where("id = ?", 5).Delete(&Account{}).Error; err != nil {
				return err
			}
			return errNoErin // rolled back to the savepoint: erin stays
		})
		fmt.Fprintf(w, "inner transaction: %v\n", inner)
		return tx.Transaction(func(tx3 *gorm.DB) error {
			return tx3.Create(&Account{ID: 6, Owner: "frank"}).Error
		})
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "outer transaction committed")
	return nil
}

func printOwners(ctx context.Context, db *sql.DB, w io.Writer, when string) error {
	rows, err := db.QueryContext(ctx, "SELECT id, owner FROM accounts ORDER BY id")
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintf(w, "%s:", when)
	for rows.Next() {
		var id int64
		var owner string
		if err := rows.Scan(&id, &owner); err != nil {
			return err
		}
		fmt.Fprintf(w, " %d %s;", id, owner)
	}
	fmt.Fprintln(w)
	return rows.Err()
}
