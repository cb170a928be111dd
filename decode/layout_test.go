package decode

import (
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
		a.reset(2 * timeSlot)
		_ = a.int64(0) // a fixed slot first, so the time is not at offset 0
		v := a.time(want)
		got, ok := v.(time.Time)
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("time slot = %#v, want %v in UTC", v, want)
		}
	}
}
