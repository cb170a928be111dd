package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/spannerfasttest"
)

// Mutations end to end against spannerfasttest (spannertest behind a gRPC
// front layer): what Apply and BufferWrite write is read back with
// spannerfast queries.

func startMutationServer(t *testing.T) (*sql.DB, *sql.Conn) {
	t.Helper()
	srv, err := spannerfasttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ctx := context.Background()
	if err := srv.CreateTables(ctx, `CREATE TABLE Singers (
		SingerId INT64 NOT NULL,
		FirstName STRING(MAX),
		LastName STRING(MAX),
		Rating FLOAT64,
		Active BOOL
	) PRIMARY KEY (SingerId)`); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return db, c
}

// singerRows reads the table as "id:first:last:rating:active" lines.
func singerRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "SELECT SingerId, FirstName, LastName, Rating, Active FROM Singers ORDER BY SingerId")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var first, last sql.NullString
		var rating sql.NullFloat64
		var active sql.NullBool
		if err := rows.Scan(&id, &first, &last, &rating, &active); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d:%s:%s:%v:%v", id, first.String, last.String, rating.Float64, active.Bool))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantSingers(t *testing.T, db *sql.DB, what string, want ...string) {
	t.Helper()
	if got := singerRows(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: rows\n %s\nwant\n %s", what, strings.Join(got, "\n "), strings.Join(want, "\n "))
	}
}

func TestEmbeddedApply(t *testing.T) {
	ctx := context.Background()
	db, c := startMutationServer(t)
	apply := func(ms []*spanner.Mutation, opts ...spanner.ApplyOption) {
		t.Helper()
		if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error {
			ts, err := sc.Apply(ctx, ms, opts...)
			if err == nil && ts.IsZero() {
				t.Errorf("Apply returned no commit timestamp")
			}
			return err
		}); err != nil {
			t.Fatalf("Apply: %v", err)
		}
	}

	apply(testMutations()[:2])
	wantSingers(t, db, "after Apply", "1:Marc:Richards:4.5:true", "2:Catalina:Smith:3:false")

	apply([]*spanner.Mutation{
		spanner.Update("Singers", []string{"SingerId", "Rating"}, []any{int64(2), 5.0}),
		spanner.InsertOrUpdate("Singers", singerCols, []any{int64(3), "Alice", "Trentor", nil, nil}),
	}, spanner.TransactionTag("t"), spanner.ApplyCommitOptions(spanner.CommitOptions{ReturnCommitStats: true}))
	wantSingers(t, db, "after Update and InsertOrUpdate", "1:Marc:Richards:4.5:true", "2:Catalina:Smith:5:false", "3:Alice:Trentor:0:false")

	apply([]*spanner.Mutation{spanner.Delete("Singers", spanner.Key{int64(1)})}, spanner.ApplyAtLeastOnce())
	wantSingers(t, db, "after an at-least-once Delete", "2:Catalina:Smith:5:false", "3:Alice:Trentor:0:false")

	// A failing Apply writes nothing: the whole batch is one transaction.
	err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error {
		_, err := sc.Apply(ctx, []*spanner.Mutation{
			spanner.Insert("Singers", singerCols, []any{int64(4), "New", "Singer", 1.0, true}),
			spanner.Insert("Singers", singerCols, []any{int64(2), "Dup", "Key", 1.0, true}),
		})
		return err
	})
	if err == nil {
		t.Fatal("Apply of a duplicate key succeeded")
	}
	wantSingers(t, db, "after a failed Apply", "2:Catalina:Smith:5:false", "3:Alice:Trentor:0:false")
}

func TestEmbeddedBufferWrite(t *testing.T) {
	ctx := context.Background()
	db, c := startMutationServer(t)
	buffer := func(ms ...*spanner.Mutation) {
		t.Helper()
		if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error { return sc.BufferWrite(ms) }); err != nil {
			t.Fatalf("BufferWrite: %v", err)
		}
	}

	// Mutations alone.
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	buffer(testMutations()[0])
	buffer(testMutations()[1])
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wantSingers(t, db, "mutations only", "1:Marc:Richards:4.5:true", "2:Catalina:Smith:3:false")

	// With DML: the mutations apply at commit, after the statements, so
	// the transaction's own query does not see them.
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Singers SET Rating = 2.5 WHERE SingerId = 1"); err != nil {
		t.Fatal(err)
	}
	buffer(spanner.Insert("Singers", singerCols, []any{int64(7), "Bo", "Dee", 1.0, true}))
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM Singers").Scan(&n); err != nil || n != 2 {
		t.Fatalf("COUNT(*) in the transaction = %d, %v; want 2 (buffered mutations not yet applied)", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// CommitTimestamp and SHOW VARIABLE commit_timestamp report that commit.
	var shown time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&shown); err != nil {
		t.Fatal(err)
	}
	if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error {
		ts, err := sc.CommitTimestamp()
		if err == nil && (shown.IsZero() || !ts.Equal(shown)) {
			t.Errorf("CommitTimestamp %v, SHOW VARIABLE commit_timestamp %v", ts, shown)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantSingers(t, db, "DML and mutations", "1:Marc:Richards:2.5:true", "2:Catalina:Smith:3:false", "7:Bo:Dee:1:true")

	// Rolled back: nothing is written.
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	buffer(spanner.Delete("Singers", spanner.AllKeys()))
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	wantSingers(t, db, "after a rollback", "1:Marc:Richards:2.5:true", "2:Catalina:Smith:3:false", "7:Bo:Dee:1:true")

}
