package e2e

import (
	"context"
	"database/sql"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"

	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// allTypesDDL covers every type spannertest can store and return. The
// string and timestamp arrays are ASs and ATs: AS and AT are reserved words
// in GoogleSQL (the emulator rejects them; spannertest does not).
const allTypesDDL = `CREATE TABLE AllTypes (
	Id INT64 NOT NULL,
	B BOOL, I INT64, F FLOAT64, S STRING(MAX), Y BYTES(MAX), D DATE, T TIMESTAMP,
	AB ARRAY<BOOL>, AI ARRAY<INT64>, AF ARRAY<FLOAT64>, ASs ARRAY<STRING(MAX)>,
	AY ARRAY<BYTES(MAX)>, AD ARRAY<DATE>, ATs ARRAY<TIMESTAMP>
) PRIMARY KEY (Id)`

var allTypesColumns = []string{"Id", "B", "I", "F", "S", "Y", "D", "T", "AB", "AI", "AF", "ASs", "AY", "AD", "ATs"}

// allTypesRow is one row as the application scans it.
type allTypesRow struct {
	ID int64
	B  sql.NullBool
	I  sql.NullInt64
	F  sql.NullFloat64
	S  sql.NullString
	Y  []byte
	D  spanner.NullDate
	T  sql.NullTime
	AB []spanner.NullBool
	AI []spanner.NullInt64
	AF []spanner.NullFloat64
	AS []spanner.NullString
	AY [][]byte
	AD []spanner.NullDate
	AT []spanner.NullTime
}

func (r *allTypesRow) dest() []any {
	return []any{&r.ID, &r.B, &r.I, &r.F, &r.S, &r.Y, &r.D, &r.T, &r.AB, &r.AI, &r.AF, &r.AS, &r.AY, &r.AD, &r.AT}
}

func (r *allTypesRow) mutation() *spanner.Mutation {
	return spanner.InsertOrUpdate("AllTypes", allTypesColumns, []any{
		r.ID, spanner.NullBool{Bool: r.B.Bool, Valid: r.B.Valid}, spanner.NullInt64{Int64: r.I.Int64, Valid: r.I.Valid},
		spanner.NullFloat64{Float64: r.F.Float64, Valid: r.F.Valid}, spanner.NullString{StringVal: r.S.String, Valid: r.S.Valid},
		r.Y, r.D, spanner.NullTime{Time: r.T.Time, Valid: r.T.Valid},
		r.AB, r.AI, r.AF, r.AS, r.AY, r.AD, r.AT,
	})
}

func randomRow(rng *rand.Rand, id int64) allTypesRow {
	null := func() bool { return rng.IntN(5) == 0 }
	r := allTypesRow{ID: id}
	if !null() {
		r.B = sql.NullBool{Bool: rng.IntN(2) == 0, Valid: true}
	}
	if !null() {
		r.I = sql.NullInt64{Int64: []int64{math.MinInt64, math.MaxInt64, 0, -1, rng.Int64()}[rng.IntN(5)], Valid: true}
	}
	if !null() {
		r.F = sql.NullFloat64{Float64: []float64{math.Inf(1), math.Inf(-1), 0, -1.5, rng.NormFloat64() * 1e10}[rng.IntN(5)], Valid: true}
	}
	if !null() {
		r.S = sql.NullString{String: randomString(rng), Valid: true}
	}
	if !null() {
		r.Y = randomBytes(rng)
	}
	if !null() {
		r.D = spanner.NullDate{Date: randomDate(rng), Valid: true}
	}
	if !null() {
		r.T = sql.NullTime{Time: randomTime(rng), Valid: true}
	}
	if !null() {
		r.AB = make([]spanner.NullBool, rng.IntN(4))
		for i := range r.AB {
			if !null() {
				r.AB[i] = spanner.NullBool{Bool: rng.IntN(2) == 0, Valid: true}
			}
		}
	}
	if !null() {
		r.AI = make([]spanner.NullInt64, rng.IntN(4))
		for i := range r.AI {
			if !null() {
				r.AI[i] = spanner.NullInt64{Int64: rng.Int64() - math.MaxInt64/2, Valid: true}
			}
		}
	}
	if !null() {
		r.AF = make([]spanner.NullFloat64, rng.IntN(4))
		for i := range r.AF {
			if !null() {
				r.AF[i] = spanner.NullFloat64{Float64: rng.Float64(), Valid: true}
			}
		}
	}
	if !null() {
		r.AS = make([]spanner.NullString, rng.IntN(4))
		for i := range r.AS {
			if !null() {
				r.AS[i] = spanner.NullString{StringVal: randomString(rng), Valid: true}
			}
		}
	}
	if !null() {
		r.AY = make([][]byte, rng.IntN(4))
		for i := range r.AY {
			if !null() {
				r.AY[i] = randomBytes(rng)
			}
		}
	}
	if !null() {
		r.AD = make([]spanner.NullDate, rng.IntN(4))
		for i := range r.AD {
			if !null() {
				r.AD[i] = spanner.NullDate{Date: randomDate(rng), Valid: true}
			}
		}
	}
	if !null() {
		r.AT = make([]spanner.NullTime, rng.IntN(4))
		for i := range r.AT {
			if !null() {
				r.AT[i] = spanner.NullTime{Time: randomTime(rng), Valid: true}
			}
		}
	}
	return r
}

func randomString(rng *rand.Rand) string {
	alphabet := []rune("abcXYZ 019_-é日本語🙂\"'\\")
	n := rng.IntN(40)
	out := make([]rune, n)
	for i := range out {
		out[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(out)
}

func randomBytes(rng *rand.Rand) []byte {
	b := make([]byte, rng.IntN(33))
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return b
}

func randomDate(rng *rand.Rand) civil.Date {
	return civil.DateOf(time.Date(1+rng.IntN(9999), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC))
}

func randomTime(rng *rand.Rand) time.Time {
	t := time.Date(1+rng.IntN(9999), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, time.UTC)
	// 0..9 fraction digits.
	nanos := rng.IntN(1_000_000_000)
	for range rng.IntN(10) {
		nanos -= nanos % 10
	}
	return t.Add(time.Duration(nanos)).Truncate(time.Microsecond * time.Duration([]int{1, 1000}[rng.IntN(2)]))
}

// loadAllTypes creates AllTypes and loads n random rows.
func loadAllTypes(ctx context.Context, t *testing.T, target embedded.Target, n int) []allTypesRow {
	t.Helper()
	if err := target.CreateTables(ctx, allTypesDDL); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	want := make([]allTypesRow, n)
	ms := make([]*spanner.Mutation, n)
	for i := range want {
		want[i] = randomRow(rng, int64(i))
		ms[i] = want[i].mutation()
	}
	if err := target.Load(ctx, ms); err != nil {
		t.Fatal(err)
	}
	return want
}

func readAllTypes(ctx context.Context, t *testing.T, db *sql.DB) []allTypesRow {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT Id, B, I, F, S, Y, D, T, AB, AI, AF, ASs, AY, AD, ATs FROM AllTypes ORDER BY Id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []allTypesRow
	for rows.Next() {
		var r allTypesRow
		if err := rows.Scan(r.dest()...); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

func compareRows(t *testing.T, got, want []allTypesRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		w := normalize(want[i])
		g := normalize(got[i])
		gv, wv := reflect.ValueOf(g), reflect.ValueOf(w)
		for f := 0; f < gv.NumField(); f++ {
			if !reflect.DeepEqual(gv.Field(f).Interface(), wv.Field(f).Interface()) {
				t.Fatalf("row %d column %s:\n got %#v\nwant %#v", i, gv.Type().Field(f).Name, gv.Field(f).Interface(), wv.Field(f).Interface())
			}
		}
	}
}

// normalize makes equal values compare equal: times in UTC, empty and nil
// byte slices distinguished only where Spanner distinguishes them.
func normalize(r allTypesRow) allTypesRow {
	if r.T.Valid {
		r.T.Time = r.T.Time.UTC()
	}
	for i := range r.AT {
		r.AT[i].Time = r.AT[i].Time.UTC()
	}
	if r.Y != nil && len(r.Y) == 0 {
		r.Y = []byte{}
	}
	return r
}

func TestAllTypesSpannertest(t *testing.T) {
	ctx := context.Background()
	srv, err := embedded.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	want := loadAllTypes(ctx, t, srv.Target, 300)
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		t.Run(mode, func(t *testing.T) {
			db, err := sql.Open("spannerfast", srv.DSN(mode))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			compareRows(t, readAllTypes(ctx, t, db), want)
		})
	}
}

func TestAllTypesEmulator(t *testing.T) {
	ctx := context.Background()
	edb := emulatortest.NewDatabase(t)
	target := embedded.Target{Endpoint: edb.Endpoint, PlainText: true, Database: edb.Path()}
	want := loadAllTypes(ctx, t, target, 300)
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		t.Run(mode, func(t *testing.T) {
			db, err := sql.Open("spannerfast", edb.DSN(mode))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			compareRows(t, readAllTypes(ctx, t, db), want)
		})
	}
}
