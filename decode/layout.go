package decode

import (
	"time"
	"unsafe"
)

// The row slab's layout, in one place.
//
// A slab is pointer-free memory allocated as a []uint64, so it starts on an
// 8-byte boundary, and every slot below is a multiple of 8 bytes long, so
// every slot starts on one too. A row's slots come first, then its content:
// the bytes of its strings and BYTES values, unpadded (see arena). A column
// takes one slot:
//
//	INT64, FLOAT64, FLOAT32   fixedSlot: the number (a float32 in its first 4 bytes)
//	STRING, UUID, DATE,       safe: stringSlot (a string header), its bytes in
//	NUMERIC as text             the content; raw: sliceSlot (a []byte header
//	                            aliasing the receive buffer)
//	BYTES, PROTO              sliceSlot (a []byte header), the decoded bytes in
//	                            the content
//	TIMESTAMP                 timeSlot: a UTC time.Time
//
// Header and time sizes come from unsafe.Sizeof, so the layout is the
// platform's own: a string header is two words, 16 bytes on 64-bit and 8 on
// 32-bit platforms. The stores that fill headers (stringWords, sliceWords)
// are checked against the real header sizes at compile time below.
const (
	slabAlign  = 8
	fixedSlot  = 8
	stringSlot = (int(unsafe.Sizeof("")) + slabAlign - 1) &^ (slabAlign - 1)
	sliceSlot  = (int(unsafe.Sizeof([]byte(nil))) + slabAlign - 1) &^ (slabAlign - 1)
	timeSlot   = (timeBytes + slabAlign - 1) &^ (slabAlign - 1)
	// rawStringSlot is what a string-like column takes in raw mode.
	rawStringSlot = sliceSlot

	timeBytes = int(unsafe.Sizeof(time.Time{}))
)

// slabKind says how many bytes of a row's slab a column's value takes.
type slabKind uint8

const (
	slabNone   slabKind = iota
	slabFixed8          // INT64, FLOAT64, FLOAT32
	slabString          // STRING, UUID, DATE, NUMERIC as text: header + bytes (raw: a []byte header)
	slabBytes           // BYTES, PROTO: header + decoded bytes
	slabTime            // TIMESTAMP
)

// Compile-time checks: each array has a negative length, and the build
// fails, if the word structs do not match the runtime's header layouts.
var (
	_ [unsafe.Sizeof(stringWords{}) - unsafe.Sizeof("")]struct{}
	_ [unsafe.Sizeof("") - unsafe.Sizeof(stringWords{})]struct{}
	_ [unsafe.Sizeof(sliceWords{}) - unsafe.Sizeof([]byte(nil))]struct{}
	_ [unsafe.Sizeof([]byte(nil)) - unsafe.Sizeof(sliceWords{})]struct{}
)

// roundUp8 is n rounded up to a whole number of slab alignment units.
func roundUp8(n int) int { return (n + slabAlign - 1) &^ (slabAlign - 1) }
