package decode

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestSmallRatIsSetString: the fast NUMERIC path yields a big.Rat
// indistinguishable (reflect.DeepEqual, so the same numerator and
// denominator words and signs) from big.Rat.SetString's.
func TestSmallRatIsSetString(t *testing.T) {
	cases := []string{"0", "-0", "+0", "0.000", "-0.0", "1", "-1", "+7", "10", "1.5", "-1.5", "0.5", "12345.678901",
		"0.000000001", "-0.000000001", "999999999999999999", "-999999999999999999", "99999999.9999999999",
		"0.125", "1000000000000000.00", "2.50", "-00012.3400", "3.", ".5", "-.25"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := 1 + rng.IntN(18)
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteByte('-')
		}
		dot := rng.IntN(n + 1)
		for i := range n {
			if i == dot && rng.IntN(4) != 0 {
				b.WriteByte('.')
			}
			d := rng.IntN(10)
			if rng.IntN(3) == 0 {
				d = 0 // many trailing zeros and powers of ten
			}
			fmt.Fprint(&b, d)
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if !isDecimal([]byte(s)) {
			continue
		}
		got, ok := smallRat([]byte(s))
		if !ok {
			t.Fatalf("%q: fast path declined", s)
		}
		want, _ := new(big.Rat).SetString(s)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v (%v), SetString %#v (%v)", s, got, got, want, want)
		}
		// The value is the caller's: changing it touches no shared words.
		got.Mul(got, big.NewRat(3, 7))
		if !reflect.DeepEqual(ratOne, big.NewRat(1, 1)) {
			t.Fatalf("%q: changing the result changed ratOne to %v", s, ratOne)
		}
	}
}

// TestParseNumericAllocs: a NUMERIC of up to 18 digits costs one
// allocation (the big.Rat and its words together).
func TestParseNumericAllocs(t *testing.T) {
	v := Value{Kind: KindString, Bytes: []byte("12345.678901")}
	if a := testing.AllocsPerRun(100, func() { _, _ = parseNumeric(v) }); a != 1 {
		t.Errorf("parseNumeric: %v allocations, want 1", a)
	}
}
