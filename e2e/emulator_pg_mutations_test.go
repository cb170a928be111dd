package e2e

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// emuApply runs Apply on c.
func emuApply(ctx context.Context, c *sql.Conn, ms []*spanner.Mutation) (time.Time, error) {
	var ts time.Time
	err := c.Raw(func(dc any) error {
		var err error
		ts, err = dc.(sfdriver.SpannerConn).Apply(ctx, ms)
		return err
	})
	return ts, err
}

// emuBufferWrite runs BufferWrite on c.
func emuBufferWrite(c *sql.Conn, ms []*spanner.Mutation) error {
	return c.Raw(func(dc any) error { return dc.(sfdriver.SpannerConn).BufferWrite(ms) })
}

// TestEmulatorPGMutationTypes: the rows of TestEmulatorPostgreSQLTypes
// (numeric with NaN, jsonb, timestamptz, date, bytea, varchar, bigint, the
// arrays of each, NULLs and typed NULLs) written by Apply as spanner.Insert
// mutations read back exactly as the same rows written by INSERT with
// parameters, in safe and raw mode.
func TestEmulatorPGMutationTypes(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	byDML, _ := emuPGTypesDB(t, ctx)
	byMutation, edb := emuPGDB(t, []string{emuPGTypesDDL})
	c := dbConn(t, byMutation)
	cols := []string{"k", "n", "j", "ts", "d", "b", "s", "i", "an", "aj", "ats", "ad", "ab", "ai"}
	var ms []*spanner.Mutation
	for _, r := range emuPGTypesRows() {
		ms = append(ms, spanner.Insert("pgtypes", cols, r))
	}
	if ts, err := emuApply(ctx, c, ms); err != nil || ts.IsZero() {
		t.Fatalf("Apply: %v, %v", ts, err)
	}
	query := emuPGTypesAll
	for _, raw := range []bool{false, true} {
		props := []string{"rawDecode=" + map[bool]string{false: "false", true: "true"}[raw]}
		want := emuSFRows(t, ctx, byDML, query)
		got := emuSFRows(t, ctx, emuOpen(t, edb.DSN(props...)), query)
		if raw {
			for r := range got {
				for c := range got[r] {
					got[r][c] = emuPGRawText(got[r][c], want[r][c])
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: rows written by mutations\n%#v\nby DML\n%#v", props, got, want)
		}
	}
}

// TestEmulatorPGMutations: Apply and BufferWrite on a PostgreSQL table:
// Insert, Update, InsertOrUpdate, Replace, Delete of a key and of a key
// range, InsertMap; BufferWrite's mutations commit with the transaction's
// DML and go with its rollback; a failing Apply writes none of its
// mutations.
func TestEmulatorPGMutations(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, []string{
		"CREATE TABLE items (id bigint NOT NULL PRIMARY KEY, price numeric, attrs jsonb, day date, seen timestamptz)",
	})
	c := dbConn(t, db)
	cols := []string{"id", "price", "attrs", "day", "seen"}
	seen := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	row := func(id int64, price string) []any {
		return []any{id, spanner.PGNumeric{Numeric: price, Valid: true},
			spanner.PGJsonB{Value: map[string]any{"id": id}, Valid: true}, civil.Date{Year: 2025, Month: 6, Day: int(id)}, seen}
	}
	_, err := emuApply(ctx, c, []*spanner.Mutation{
		spanner.Insert("items", cols, row(1, "1.10")),
		spanner.Insert("items", cols, row(2, "2.20")),
		spanner.InsertMap("items", map[string]any{"id": int64(3), "price": spanner.PGNumeric{Numeric: "3.3", Valid: true}}),
		spanner.Insert("items", cols, row(4, "4.4")),
		spanner.Insert("items", cols, row(5, "5.5")),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = emuApply(ctx, c, []*spanner.Mutation{
		spanner.Update("items", []string{"id", "price"}, []any{int64(1), spanner.PGNumeric{Numeric: "NaN", Valid: true}}),
		spanner.InsertOrUpdate("items", []string{"id", "attrs"}, []any{int64(2), spanner.PGJsonB{Value: []any{"x"}, Valid: true}}),
		spanner.InsertOrUpdate("items", []string{"id", "price"}, []any{int64(6), spanner.PGNumeric{Numeric: "6", Valid: true}}),
		spanner.Replace("items", []string{"id", "price"}, []any{int64(3), spanner.PGNumeric{}}),
		spanner.Delete("items", spanner.KeyRange{Start: spanner.Key{int64(4)}, End: spanner.Key{int64(5)}, Kind: spanner.ClosedClosed}),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := emuColumn[string](t, ctx, db, "SELECT id::text || ':' || coalesce(price::text, '-') || ':' || coalesce(attrs::text, '-') || ':' || "+
		"coalesce(day::text, '-') FROM items ORDER BY id")
	want := []string{`1:NaN:{"id": 1}:2025-06-01`, `2:2.20:["x"]:2025-06-02`, `3:-:-:-`, `6:6:-:-`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after Apply:\n%q\nwant\n%q", got, want)
	}
	// A failing Apply (a duplicate key) writes none of its mutations.
	_, err = emuApply(ctx, c, []*spanner.Mutation{
		spanner.Insert("items", cols, row(7, "7")),
		spanner.Insert("items", cols, row(1, "1")),
	})
	emuWantCode(t, err, codes.AlreadyExists)
	// BufferWrite: with the transaction's DML, committed together...
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "UPDATE items SET price = $1 WHERE id = 6", spanner.PGNumeric{Numeric: "60", Valid: true})
	if err := emuBufferWrite(c, []*spanner.Mutation{
		spanner.Insert("items", cols, row(8, "8")),
		spanner.Delete("items", spanner.Key{int64(3)}),
	}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// ... and rolled back together.
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "DELETE FROM items WHERE id = 1")
	if err := emuBufferWrite(c, []*spanner.Mutation{spanner.Delete("items", spanner.AllKeys())}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	got = emuColumn[string](t, ctx, db, "SELECT id::text || ':' || coalesce(price::text, '-') FROM items ORDER BY id")
	if want := []string{"1:NaN", "2:2.20", "6:60", "8:8"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after the transactions: %q, want %q", got, want)
	}
}
