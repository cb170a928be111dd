package params

import (
	"database/sql/driver"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

func TestParseParams(t *testing.T) {
	for _, c := range []struct {
		in, out string
		names   []string
	}{
		{"SELECT 1", "SELECT 1", nil},
		{"SELECT * FROM T WHERE a = ? AND b = ?", "SELECT * FROM T WHERE a = @p1 AND b = @p2", []string{"p1", "p2"}},
		{"SELECT '?', \"?\", `?` FROM T WHERE x = ?", "SELECT '?', \"?\", `?` FROM T WHERE x = @p1", []string{"p1"}},
		{"SELECT 'it\\'s ?' WHERE a = ?", "SELECT 'it\\'s ?' WHERE a = @p1", []string{"p1"}},
		{"SELECT '''a ? ''' , ?", "SELECT '''a ? ''' , @p1", []string{"p1"}},
		{"-- what?\nSELECT ? # really?\n, ?", "-- what?\nSELECT @p1 # really?\n, @p2", []string{"p1", "p2"}},
		{"/* ? */ SELECT ? /* closed ? */", "/* ? */ SELECT @p1 /* closed ? */", []string{"p1"}},
		{"?", "@p1", []string{"p1"}},
		// A ? glued to a word must not become part of a longer name.
		{"SELECT * FROM T WHERE a=?AND b=?1", "SELECT * FROM T WHERE a=@p1 AND b=@p2 1", []string{"p1", "p2"}},
		{"SELECT @name", "SELECT @name", []string{"name"}},
		{"SELECT '@name', `@x`, \"@y\" -- @z\n/* @w */", "SELECT '@name', `@x`, \"@y\" -- @z\n/* @w */", nil},
		// Distinct names in order of first appearance; names that differ
		// in case are distinct, as in go-sql-spanner.
		{"SELECT * FROM T WHERE b = @b AND a = @a OR b2 = @B AND c=@_c1 OR @b", "SELECT * FROM T WHERE b = @b AND a = @a OR b2 = @B AND c=@_c1 OR @b", []string{"b", "a", "B", "_c1"}},
		{"@{FORCE_INDEX=i} SELECT @x,@x2,@x", "@{FORCE_INDEX=i} SELECT @x,@x2,@x", []string{"x", "x2"}},
		{"SELECT @1, @", "SELECT @1, @", nil},
	} {
		p, err := parseParams(c.in)
		if err != nil || p.sql != c.out || !slices.Equal(p.names, c.names) {
			t.Errorf("parseParams(%q) = %q, %q, %v; want %q, %q", c.in, p.sql, p.names, err, c.out, c.names)
		}
	}
	// Unclosed literals and comments are errors, as Spanner would make them.
	for _, in := range []string{"SELECT ? /* unterminated ?", "SELECT 'unterminated ?"} {
		if _, err := parseParams(in); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "unclosed") {
			t.Errorf("parseParams(%q): error %v, want InvalidArgument naming the unclosed text", in, err)
		}
	}
	for _, in := range []string{"SELECT ?, @name", "SELECT @name, ?"} {
		_, err := parseParams(in)
		if status.Code(err) != codes.InvalidArgument || !errors.Is(err, sqlparse.ErrMixedParams) || !strings.Contains(err.Error(), "must only use one parameter style") {
			t.Errorf("parseParams(%q): error %v, want InvalidArgument for mixed parameters", in, err)
		}
	}
}

func TestParseParamsNoCopy(t *testing.T) {
	sql := "SELECT a, b, c FROM T WHERE a = 'x?@y' -- no parameters?"
	if allocs := testing.AllocsPerRun(100, func() { _, _ = parseParams(sql) }); allocs != 0 {
		t.Fatalf("a statement without parameters allocates %v times, want 0", allocs)
	}
}

// FuzzParseParams: the scanner never panics; names are distinct (ignoring
// case) and each is in the SQL it returns; the rewrite is a fixed point
// (scanning the rewritten SQL finds the same parameters and rewrites
// nothing), so no `?` was left behind or glued to a neighbouring word.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{
		"SELECT ?", "SELECT @a, @A, @b", "SELECT '?' , \"@x\", `?`", "SELECT '''?''' ?", "-- ?\n?", "/* ? */ ?",
		"SELECT 'unterminated ?", "@{hint=1} SELECT @p", "SELECT ?, @x", "#?\n@x", "'\\'?'", "@", "?a?1?_",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		p, err := parseParams(sql)
		if err != nil {
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("error without InvalidArgument: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, n := range p.names {
			if n == "" || seen[n] || !strings.Contains(p.sql, "@"+n) {
				t.Fatalf("%q: names %q: empty, repeated or not in %q", sql, p.names, p.sql)
			}
			seen[n] = true
		}
		again, err := parseParams(p.sql)
		if err != nil || again.sql != p.sql || !slices.Equal(again.names, p.names) {
			t.Fatalf("%q -> %q %q; scanned again: %q %q %v", sql, p.sql, p.names, again.sql, again.names, err)
		}
	})
}

func BenchmarkBuildParams(b *testing.B) {
	args := []driver.NamedValue{{Ordinal: 1, Value: int64(1)}, {Ordinal: 2, Value: "x"}, {Ordinal: 3, Value: 2.5}}
	for _, sql := range []string{
		"SELECT a, b FROM T WHERE a = ? AND b = ? AND c > ?",
		"SELECT a, b FROM T WHERE a = @a AND b = @b AND c > @c",
	} {
		b.Run(sql[len(sql)-3:], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, err := Build(sql, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEncodeScalarMatchesClient: the direct encoding of INT64, FLOAT64 and
// BOOL parameters is exactly what the official client's encoder makes.
func TestEncodeScalarMatchesClient(t *testing.T) {
	for _, v := range []any{
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 2.5, -1e300, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1),
		true, false,
		time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)),
		time.Time{}, time.Unix(0, 999999999).In(time.FixedZone("y", -7200)),
	} {
		val, typ, ok := encodeScalar(v)
		if !ok {
			t.Fatalf("encodeScalar(%v) not handled", v)
		}
		row, err := spanner.NewRow([]string{"p"}, []any{v})
		if err != nil {
			t.Fatal(err)
		}
		var g spanner.GenericColumnValue
		if err := row.Column(0, &g); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(val, g.Value) || !proto.Equal(typ, g.Type) {
			t.Errorf("%T %v: encodeScalar = %v %v, client %v %v", v, v, val, typ, g.Value, g.Type)
		}
	}
	if _, _, ok := encodeScalar("s"); ok {
		t.Error("encodeScalar took a string (strings are sent untyped elsewhere)")
	}
	if _, _, ok := encodeScalar(spanner.CommitTimestamp); ok {
		t.Error("encodeScalar took the commit-timestamp placeholder")
	}
}

// TestEncodeCommonMatches: the one-allocation encoding of the commonest
// arguments is what encodeScalar and untypedString make, and converting
// such an argument allocates once (the string of an INT64 aside).
func TestEncodeCommonMatches(t *testing.T) {
	for _, v := range []any{"", "héllo", int64(math.MinInt64), 7, -3.5, math.NaN(), true, false} {
		got := encodeCommon(v)
		var (
			val     *structpb.Value
			typ     *spannerpb.Type
			strType *spannerpb.Type
		)
		if s, ok := v.(string); ok {
			val, strType = structpb.NewStringValue(s), typeSTRING
		} else {
			w, err := widenInts(v)
			if err != nil {
				t.Fatal(err)
			}
			val, typ, _ = encodeScalar(w)
		}
		if !proto.Equal(got.value, val) || got.typ != typ || got.strType != strType {
			t.Errorf("%T %v: encodeCommon = %v %v %v, want %v %v %v", v, v, got.value, got.typ, got.strType, val, typ, strType)
		}
	}
	if encodeCommon(time.Time{}) != nil || encodeCommon(uint64(1)) != nil {
		t.Error("encodeCommon took a value it does not encode")
	}
	for _, v := range []any{"name", 2.5, true} {
		if a := testing.AllocsPerRun(100, func() {
			nv := driver.NamedValue{Ordinal: 1, Value: v}
			if err := Convert(&nv); err != nil {
				t.Fatal(err)
			}
		}); a != 1 {
			t.Errorf("%T: %v allocations per Convert, want 1", v, a)
		}
	}
}
