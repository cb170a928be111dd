package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/embedded"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// The ownership rules of the README's "Raw decode" section, end to end: safe
// values are kept forever, raw values die at the next Next, and the poison
// mode makes a kept raw value visibly wrong.

const ownershipRows = 400

// ownershipResult is ownershipRows rows of (INT64, STRING, BYTES, FLOAT64).
func ownershipResult() *spannerpb.ResultSet {
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "id", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		{Name: "name", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}},
		{Name: "blob", Type: &spannerpb.Type{Code: spannerpb.TypeCode_BYTES}},
		{Name: "score", Type: &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}},
	}}}}
	for i := range ownershipRows {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{
			structpb.NewStringValue(fmt.Sprint(1000 + i)),
			structpb.NewStringValue(ownershipName(i)),
			structpb.NewStringValue("AAECAwQFBgc="), // 0..7
			structpb.NewNumberValue(float64(i) / 4),
		}})
	}
	return rs
}

func ownershipName(i int) string { return fmt.Sprintf("name-%04d-%s", i, strings.Repeat("x", i%17)) }

type keptRow struct {
	id    int64
	name  string
	blob  []byte
	score float64
}

func readKept(t *testing.T, db *sql.DB, query string) []keptRow {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []keptRow
	for rows.Next() {
		var r keptRow
		if err := rows.Scan(&r.id, &r.name, &r.blob, &r.score); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readKeptAny scans the name into *any, which database/sql copies for []byte.
func readKeptAny(t *testing.T, db *sql.DB, query string) []any {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		var id, name, blob, score any
		if err := rows.Scan(&id, &name, &blob, &score); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkKept(t *testing.T, got []keptRow, names []any) {
	t.Helper()
	if len(got) != ownershipRows || len(names) != ownershipRows {
		t.Fatalf("got %d rows and %d names, want %d", len(got), len(names), ownershipRows)
	}
	for i, r := range got {
		if r.id != int64(1000+i) || r.name != ownershipName(i) || !bytes.Equal(r.blob, []byte{0, 1, 2, 3, 4, 5, 6, 7}) || r.score != float64(i)/4 {
			t.Fatalf("row %d kept as %+v", i, r)
		}
		var s string
		switch n := names[i].(type) {
		case string:
			s = n
		case []byte:
			s = string(n)
		}
		if s != ownershipName(i) {
			t.Fatalf("row %d: name kept through *any is %q", i, names[i])
		}
	}
}

// TestOwnershipFake keeps values of a result spread over many messages, in
// both modes with poisoning on, then reruns the query so every receive
// buffer and slot is reused, and checks what it kept.
func TestOwnershipFake(t *testing.T) {
	srv := fakespanner.Start(t)
	srv.AddResult("SELECT owned", &fakespanner.Result{ResultSet: ownershipResult(), Split: fakespanner.SplitOptions{MaxValues: 37}})
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		t.Run(mode, func(t *testing.T) {
			db := openFake(t, srv, mode, "poison_raw_buffers=true", "prefetch_messages=2")
			kept := readKept(t, db, "SELECT owned")
			names := readKeptAny(t, db, "SELECT owned")
			for range 3 {
				readKept(t, db, "SELECT owned")
			}
			checkKept(t, kept, names)
		})
	}
}

// TestRawBytesKeptPastNextIsPoisoned is the misuse the poison mode exists
// for: sql.RawBytes aliases the receive buffer and is dead after Next.
func TestRawBytesKeptPastNextIsPoisoned(t *testing.T) {
	srv := fakespanner.Start(t)
	srv.AddResult("SELECT owned", &fakespanner.Result{ResultSet: ownershipResult(), Split: fakespanner.SplitOptions{MaxValues: 4}})
	db := openFake(t, srv, "rawDecode=true", "poison_raw_buffers=true")
	rows, err := db.Query("SELECT owned")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var aliases []sql.RawBytes
	for rows.Next() {
		var id int64
		var name sql.RawBytes
		var blob []byte
		var score float64
		if err := rows.Scan(&id, &name, &blob, &score); err != nil {
			t.Fatal(err)
		}
		if string(name) != ownershipName(int(id-1000)) {
			t.Fatalf("row %d: RawBytes read before Next is %q", id, name)
		}
		aliases = append(aliases, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	poisoned := 0
	for _, a := range aliases[:len(aliases)-2] {
		if len(a) > 0 && bytes.Count(a, []byte{0xAA}) == len(a) {
			poisoned++
		}
	}
	if poisoned != len(aliases)-2 {
		t.Fatalf("%d of %d RawBytes kept past Next show the poison pattern, want all", poisoned, len(aliases)-2)
	}
}

// TestOwnershipEmbedded runs the same checks against spannertest, which
// sends one row per message.
func TestOwnershipEmbedded(t *testing.T) {
	ctx := context.Background()
	srv, err := embedded.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.CreateTables(ctx, "CREATE TABLE Owned (id INT64 NOT NULL, name STRING(MAX), blob BYTES(MAX), score FLOAT64) PRIMARY KEY (id)"); err != nil {
		t.Fatal(err)
	}
	var ms []*spanner.Mutation
	for i := range ownershipRows {
		ms = append(ms, spanner.Insert("Owned", []string{"id", "name", "blob", "score"},
			[]any{int64(1000 + i), ownershipName(i), []byte{0, 1, 2, 3, 4, 5, 6, 7}, float64(i) / 4}))
	}
	if err := srv.Load(ctx, ms); err != nil {
		t.Fatal(err)
	}
	const q = "SELECT id, name, blob, score FROM Owned ORDER BY id"
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		t.Run(mode, func(t *testing.T) {
			db, err := sql.Open("spannerfast", srv.DSN(mode, "poison_raw_buffers=true"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			kept := readKept(t, db, q)
			names := readKeptAny(t, db, q)
			readKept(t, db, q)
			checkKept(t, kept, names)
		})
	}
}
