package e2e

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"testing"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// emuPGRawEqual reports the columns where raw-mode rows got differ from
// safe-mode rows want (raw text values compared as strings), and rows
// that were not read in raw mode (no text value as []byte).
func emuPGRawEqual(t *testing.T, label string, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", label, len(got), len(want))
	}
	rawTexts := 0
	for r := range want {
		for c := range want[r] {
			if _, ok := got[r][c].([]byte); ok {
				if _, ok := want[r][c].(string); ok {
					rawTexts++
				}
			}
			if g := emuPGRawText(got[r][c], want[r][c]); !reflect.DeepEqual(g, want[r][c]) {
				t.Errorf("%s row %d column %d: %#v, want %#v", label, r+1, c, g, want[r][c])
			}
		}
	}
	if rawTexts == 0 {
		t.Errorf("%s: no text value came as raw bytes: not read in raw mode", label)
	}
}

// TestEmulatorPGRawDecodePerQuery: driver.RawDecode(true) on one query of
// a PostgreSQL database (numeric with NaN, jsonb, timestamptz, date,
// bytea, arrays, NULLs) returns the values of safe mode, outside and in a
// read-write transaction; so do the rows of DML with RETURNING run in raw
// mode in a transaction, while in autocommit (whose rows are read before
// the commit and kept) they decode in safe mode; RawDecode(false) on a
// rawDecode=true connection returns safe values.
func TestEmulatorPGRawDecodePerQuery(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuPGTypesDB(t, ctx)
	query := emuPGTypesAll
	want := emuSFRows(t, ctx, db, query)
	if len(want) != 3 {
		t.Fatalf("%d rows inserted, want 3", len(want))
	}
	emuPGRawEqual(t, "RawDecode(true)", emuSFRows(t, ctx, db, query, sfdriver.RawDecode(true)), want)
	rawDB := emuOpen(t, edb.DSN("rawDecode=true"))
	if got := emuSFRows(t, ctx, rawDB, query, sfdriver.RawDecode(false)); !reflect.DeepEqual(got, want) {
		t.Errorf("RawDecode(false) on a rawDecode=true connection:\n%#v\nwant\n%#v", got, want)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuPGRawEqual(t, "RawDecode(true) in a transaction", emuSFRows(t, ctx, tx, query, sfdriver.RawDecode(true)), want)

	// DML with RETURNING of every column (an UPDATE that changes no
	// value), in the transaction and then in autocommit, read in raw mode.
	const update = "UPDATE pgtypes SET s = s RETURNING " + emuPGTypesColumns
	emuPGRawEqual(t, "UPDATE ... RETURNING in a transaction", emuSortByKey(emuSFRows(t, ctx, tx, update, sfdriver.RawDecode(true))), want)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	returned := emuSortByKey(emuSFRows(t, ctx, db, update, sfdriver.RawDecode(true)))
	if !reflect.DeepEqual(returned, want) {
		t.Errorf("UPDATE ... RETURNING in autocommit:\n%#v\nwant the safe values\n%#v", returned, want)
	}
}

// TestEmulatorPGRawDecodeMultiStatement: a query of a string of several
// statements in raw mode: read as it streams in a read-only implicit
// transaction (raw values), and read to its end before the next statement
// in a read-write one (DML before it), where its rows are kept and so
// decode in safe mode. They were once kept raw: every row then held the
// last row's numbers (and with poison_raw_buffers, garbage).
func TestEmulatorPGRawDecodeMultiStatement(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuPGTypesDB(t, ctx)
	query := emuPGTypesAll
	want := emuSFRows(t, ctx, db, query)
	for _, props := range [][]string{nil, {"rawDecode=true"}} {
		pdb := emuOpen(t, edb.DSN(props...))
		second := func(multi string) [][]any {
			rows, err := pdb.QueryContext(ctx, multi, sfdriver.RawDecode(true))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
			}
			if !rows.NextResultSet() {
				t.Fatalf("%v: %s: one result set: %v", props, multi, rows.Err())
			}
			return emuSFSet(t, rows)
		}
		emuPGRawEqual(t, fmt.Sprint(props, " after a query"), second("SELECT 1; "+query), want)
		if got := second("UPDATE pgtypes SET s = s WHERE k = 0; " + query); !reflect.DeepEqual(got, want) {
			t.Errorf("%v after DML:\n%#v\nwant the safe values\n%#v", props, got, want)
		}
	}
}

// emuSortByKey sorts rows by their first column, an INT64: DML returns
// its rows in no promised order.
func emuSortByKey(rows [][]any) [][]any {
	slices.SortFunc(rows, func(a, b []any) int { return cmp.Compare(a[0].(int64), b[0].(int64)) })
	return rows
}
