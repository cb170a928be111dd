package decode

import (
	"database/sql/driver"
	"unsafe"
)

// arena is where a row's values live.
//
// Safe mode: rows are carved one after another out of a shared chunk of at
// most safeChunk bytes (a row larger than that gets a chunk of its own
// size); a new chunk, twice the last up to safeChunk, is allocated when the
// next row does not fit. The chunk holds
// the rows' numbers, their string and []byte headers and bytes. A
// driver.Value points into the chunk, so a value the application keeps
// pins that chunk: at most safeChunk bytes (or its own row), never a
// receive buffer. Nothing in a chunk is written again once its row has
// been returned, so values stay valid forever. About 85 narrow rows share
// one allocation.
//
// Raw mode: one slab is allocated per result shape and reused for every row;
// strings and bytes alias the receive buffer. Values are valid until the next
// Next or Close.
//
// The slab is pointer-free memory (a []uint64). Headers stored in it point
// either into the same slab (safe mode) or into a receive buffer that the Rows
// keeps referenced while the values are valid (raw mode), so the garbage
// collector never needs to trace them.
//
// A row's memory is reserved in one piece (see reset): its slots first,
// each a multiple of 8 bytes (layout.go), then the bytes of its strings and
// BYTES values, packed without padding because nothing reads them as
// words. The next row starts at the next 8-byte boundary.
type arena struct {
	slab   []byte
	off    int // next slot of the current row
	boff   int // next byte of the current row's string and BYTES content
	raw    bool
	poison bool
	// inline is the raw-mode slab of a narrow row (a point read's five
	// columns take 64 bytes), inside the decoder: one allocation less per
	// query. Raw values are valid only until the next Next, so that they
	// point into the decoder is no new retention.
	inline [rawInlineWords]uint64
}

const rawInlineWords = 16

// safeChunk is the size of the memory that safe-mode rows share, and so
// the most a kept value retains unless its own row is larger.
const safeChunk = 4096

// slabWords allocates n bytes of slabAlign-aligned, pointer-free memory
// (see layout.go).
func slabWords(n int) []byte {
	if n == 0 {
		return nil
	}
	w := make([]uint64, roundUp8(n)/slabAlign)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*slabAlign)
}

// reset prepares the arena for a row whose slots take slots bytes and
// whose string and BYTES content takes at most content bytes.
func (a *arena) reset(slots, content int) {
	size := slots + content
	if a.raw {
		a.off, a.boff = 0, slots
		switch {
		case len(a.slab) >= size:
			if a.poison {
				poisonBytes(a.slab)
			}
		case a.slab == nil && size <= len(a.inline)*slabAlign:
			a.slab = unsafe.Slice((*byte)(unsafe.Pointer(&a.inline[0])), len(a.inline)*slabAlign)
		default:
			a.slab = slabWords(size)
		}
		return
	}
	start := roundUp8(a.boff) // the end of the previous row
	if len(a.slab)-start < size {
		// Chunks double from the first row's size up to safeChunk, so a
		// one-row result (a point read) allocates only what it needs.
		n := min(safeChunk, max(size, 2*len(a.slab)))
		a.slab, start = slabWords(max(size, n)), 0
	}
	a.off, a.boff = start, start+slots
}

func poisonBytes(b []byte) {
	for i := range b {
		b[i] = 0xAA
	}
}

// take returns a slot of n bytes, aligned when every earlier take was a
// whole number of slots (layout.go).
func (a *arena) take(n int) unsafe.Pointer {
	p := unsafe.Pointer(&a.slab[a.off])
	a.off += n
	return p
}

// content returns n (> 0) bytes of the row's string and BYTES content.
func (a *arena) content(n int) []byte {
	b := a.slab[a.boff : a.boff+n : a.boff+n]
	a.boff += n
	return b
}

// eface is the runtime layout of an empty interface.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	int64Type   = typeWord(int64(0))
	float64Type = typeWord(float64(0))
	float32Type = typeWord(float32(0))
	stringType  = typeWord("")
	bytesType   = typeWord([]byte(nil))
)

// box makes an interface of the given dynamic type whose data word is p,
// without the allocation that converting a value to an interface costs.
func box(typ, p unsafe.Pointer) driver.Value {
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, p
	return v
}

func (a *arena) int64(x int64) driver.Value {
	p := a.take(fixedSlot)
	*(*int64)(p) = x
	return box(int64Type, p)
}

func (a *arena) float64(x float64) driver.Value {
	p := a.take(fixedSlot)
	*(*float64)(p) = x
	return box(float64Type, p)
}

func (a *arena) float32(x float32) driver.Value {
	p := a.take(fixedSlot)
	*(*float32)(p) = x
	return box(float32Type, p)
}

// string returns s as a Go string (safe mode: copied into the slab) or, in raw
// mode, as a []byte aliasing the receive buffer so that database/sql copies it
// for *string, *[]byte and *any destinations.
func (a *arena) string(s []byte) driver.Value {
	if a.raw {
		return a.bytesHeader(s)
	}
	hdr := a.take(stringSlot)
	var data uintptr
	if len(s) > 0 {
		c := a.content(len(s))
		copy(c, s)
		data = uintptr(unsafe.Pointer(&c[0]))
	}
	*(*stringWords)(hdr) = stringWords{data, len(s)}
	return box(stringType, hdr)
}

// bytesHeader boxes b as a []byte whose header lives in the slab.
func (a *arena) bytesHeader(b []byte) driver.Value {
	hdr := a.take(sliceSlot)
	*(*sliceWords)(hdr) = sliceWords{uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b), cap(b)}
	return box(bytesType, hdr)
}

// Headers are written into the slab as plain words. The slab is pointer-free
// memory the collector never scans, so a typed pointer store there would only
// run a write barrier for nothing, and that barrier reads the word it
// overwrites: in a reused raw slab, a stale header into a released frame.
// Word stores have no barrier, cost less, and make a stale word harmless.
type (
	stringWords struct {
		data uintptr
		len  int
	}
	sliceWords struct {
		data     uintptr
		len, cap int
	}
)

// bytesBuffer returns n bytes of the row's content for decoded BYTES.
func (a *arena) bytesBuffer(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	return a.content(n)
}

var (
	trueValue  driver.Value = true
	falseValue driver.Value = false
)

func boolValue(b bool) driver.Value {
	if b {
		return trueValue
	}
	return falseValue
}
