package e2e

import (
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/driver"
)

type emuLine struct {
	ID      int64 `spanner:"id"`
	Name    string
	Price   spanner.NullFloat64
	Note    *string
	Day     civil.Date
	TS      time.Time
	Payload []byte
	Tags    []string
	Sub     *struct{ K int64 }
}

// TestEmulatorStructs: ARRAY<STRUCT> query results (ARRAY(SELECT AS
// STRUCT ...), the only STRUCT shape Spanner returns) scan into []T and
// []*T through driver.Structs, in safe and raw mode, NULL fields into
// pointer and Null fields, a nested STRUCT field, an empty and a NULL array;
// a NULL into a plain field names the Go field and the STRUCT field.
func TestEmulatorStructs(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, nil)
	const q = `SELECT ARRAY(SELECT AS STRUCT x AS id, CONCAT('n', CAST(x AS STRING)) AS name,
		IF(x = 2, NULL, x / 4) AS price, IF(x = 1, 'hi', NULL) AS note, DATE '2024-02-29' AS day,
		TIMESTAMP '2024-01-02T03:04:05.123456Z' AS ts, b'\x00\xff' AS payload, ['a', 'b'] AS tags,
		IF(x = 1, STRUCT(x * 10 AS k), NULL) AS sub
		FROM UNNEST([1, 2]) AS x ORDER BY x),
		ARRAY(SELECT AS STRUCT 1 AS id FROM UNNEST([1]) AS x WHERE x > 5),
		CAST(NULL AS ARRAY<STRUCT<id INT64>>)`
	for _, props := range [][]string{nil, {"rawDecode=true", "poison_raw_buffers=true"}} {
		var (
			vals       []emuLine
			empty, nul []*emuLine
		)
		pdb := db
		if props != nil {
			pdb, _ = emuDB(t, nil, props...)
		}
		rows, err := pdb.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		if err := rows.Scan(driver.Structs(&vals), driver.Structs(&empty), driver.Structs(&nul)); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		at := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
		if len(vals) != 2 || empty == nil || len(empty) != 0 || nul != nil {
			t.Fatalf("%v: %+v %v %v", props, vals, empty, nul)
		}
		a, b := vals[0], vals[1]
		if a.ID != 1 || a.Name != "n1" || a.Price.Float64 != 0.25 || *a.Note != "hi" || a.Day.String() != "2024-02-29" ||
			!a.TS.Equal(at) || string(a.Payload) != "\x00\xff" || strings.Join(a.Tags, ",") != "a,b" || a.Sub.K != 10 {
			t.Errorf("%v: element 0 = %+v", props, a)
		}
		if b.ID != 2 || b.Name != "n2" || b.Price.Valid || b.Note != nil || b.Sub != nil {
			t.Errorf("%v: element 1 = %+v", props, b)
		}
	}

	type noNull struct {
		ID   int64
		Note string
	}
	var bad []noNull
	err := db.QueryRowContext(ctx, `SELECT ARRAY(SELECT AS STRUCT 1 AS id, CAST(NULL AS STRING) AS note)`).Scan(driver.Structs(&bad))
	for _, w := range []string{`"note"`, "noNull.Note", "NULL", "element 0"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %s", err, w)
		}
	}
}
