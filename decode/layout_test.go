package decode

import (
	"database/sql/driver"
	"encoding/base64"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestSlotSizes checks the layout's rules on the platform the test runs on
// (run it with GOARCH=386 too): slots hold what they box and keep the next
// slot aligned.
func TestSlotSizes(t *testing.T) {
	slots := []struct {
		name       string
		slot, need int
	}{
		{"fixed", fixedSlot, int(unsafe.Sizeof(int64(0)))},
		{"string header", stringSlot, int(unsafe.Sizeof(""))},
		{"slice header", sliceSlot, int(unsafe.Sizeof([]byte(nil)))},
		{"raw string", rawStringSlot, int(unsafe.Sizeof([]byte(nil)))},
		{"time", timeSlot, int(unsafe.Sizeof(time.Time{}))},
	}
	for _, s := range slots {
		if s.slot < s.need || s.slot%slabAlign != 0 {
			t.Errorf("%s slot = %d bytes, want >= %d and a multiple of %d", s.name, s.slot, s.need, slabAlign)
		}
	}
}

// TestTimeSlotWholeValue decodes a TIMESTAMP into a poisoned, reused raw slab:
// every byte of the time.Time must be written, its location word included.
func TestTimeSlotWholeValue(t *testing.T) {
	a := arena{raw: true, poison: true}
	want := time.Date(2024, 2, 29, 1, 2, 3, 4, time.UTC)
	for range 2 {
		a.reset(2*timeSlot, 0)
		_ = a.int64(0) // a fixed slot first, so the time is not at offset 0
		v := a.time(want)
		got, ok := v.(time.Time)
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("time slot = %#v, want %v in UTC", v, want)
		}
	}
}

// TestSafeRowsPackContent decodes rows whose strings and BYTES have odd
// lengths into shared chunks: every value stays intact after later rows,
// and every number and time slot stays 8-byte aligned behind the
// unpadded string bytes of the row before.
func TestSafeRowsPackContent(t *testing.T) {
	var a arena
	type kept struct {
		n   driver.Value
		s   driver.Value
		b   driver.Value
		ts  driver.Value
		str string
	}
	var all []kept
	for i := range 500 {
		s := strings.Repeat("x", i%13) + "!"
		raw := []byte(strings.Repeat("b", i%7))
		enc := base64.StdEncoding.EncodeToString(raw)
		a.reset(fixedSlot+stringSlot+sliceSlot+timeSlot, len(s)+base64.StdEncoding.DecodedLen(len(enc)))
		k := kept{n: a.int64(int64(i)), s: a.string([]byte(s)), str: s}
		buf := a.bytesBuffer(base64.StdEncoding.DecodedLen(len(enc)))
		m, err := base64.StdEncoding.Decode(buf, []byte(enc))
		if err != nil {
			t.Fatal(err)
		}
		k.b = a.bytesHeader(buf[:m])
		k.ts = a.time(time.Unix(int64(i), 0).UTC())
		for _, v := range []driver.Value{k.n, k.ts} {
			if p := uintptr((*eface)(unsafe.Pointer(&v)).data); p%slabAlign != 0 {
				t.Fatalf("row %d: %T slot at %#x, not %d-byte aligned", i, v, p, slabAlign)
			}
		}
		all = append(all, k)
	}
	for i, k := range all {
		if k.n != int64(i) || k.s != k.str || string(k.b.([]byte)) != strings.Repeat("b", i%7) ||
			!k.ts.(time.Time).Equal(time.Unix(int64(i), 0)) {
			t.Fatalf("row %d changed: %v %q %q %v", i, k.n, k.s, k.b, k.ts)
		}
	}
}

// TestSafeRowSize: a safe row takes its slots and its string bytes,
// unpadded: (INT64, STRING(3), STRING(3), STRING(3)) is 8 + 3*16 + 9 = 65
// bytes, rounded to 72 (with the strings padded to 8 it was 80).
func TestSafeRowSize(t *testing.T) {
	p := &Plan{}
	for i, k := range []slabKind{slabFixed8, slabString, slabString, slabString} {
		p.layout.add(i, k, false)
	}
	row := [][]byte{{0x1a, 1, '7'}, {0x1a, 3, 'a', 'b', 'c'}, {0x1a, 3, 'd', 'e', 'f'}, {0x1a, 3, 'g', 'h', 'i'}}
	if got := p.layout.slots + contentSize(&p.layout, row); got != 65 {
		t.Errorf("row size = %d, want 65", got)
	}
}
