package rows

import (
	"encoding/binary"
	"hash/maphash"
)

// Checksum summarises a result as it is read: its row type, then every
// row's encoded values in order. A read-write transaction replayed after an
// abort runs its queries again and compares checksums to tell whether it
// would see the same data.
//
// It hashes the wire bytes the decoder reads anyway (after chunk merging,
// so how the server split values into messages does not matter), never the
// decoded values: no value is formatted or allocated for it. Two 64-bit
// maphash sums with independent random seeds make an accidental match of
// different results (about 2^-128) a non-issue; the seeds are per process,
// so checksums compare only within one process, which is all a replay
// needs.
type Checksum struct {
	a, b maphash.Hash
	rows int64
	buf  [binary.MaxVarintLen64]byte
}

var checksumSeedA, checksumSeedB = maphash.MakeSeed(), maphash.MakeSeed()

// NewChecksum returns an empty checksum.
func NewChecksum() *Checksum {
	c := &Checksum{}
	c.a.SetSeed(checksumSeedA)
	c.b.SetSeed(checksumSeedB)
	return c
}

func (c *Checksum) write(p []byte) {
	n := binary.PutUvarint(c.buf[:], uint64(len(p)))
	c.a.Write(c.buf[:n])
	c.b.Write(c.buf[:n])
	c.a.Write(p)
	c.b.Write(p)
}

// addRowType starts the checksum with the result's encoded row type, so
// two empty results with different columns differ.
func (c *Checksum) addRowType(rowType []byte) { c.write(rowType) }

// addRow adds one row's encoded values.
func (c *Checksum) addRow(values [][]byte) {
	for _, v := range values {
		c.write(v)
	}
	c.rows++
}

// Rows is how many rows were added.
func (c *Checksum) Rows() int64 { return c.rows }

// Sum is the checksum of what was added so far.
func (c *Checksum) Sum() [2]uint64 { return [2]uint64{c.a.Sum64(), c.b.Sum64()} }
