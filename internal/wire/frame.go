package wire

import (
	"google.golang.org/grpc/mem"

	"github.com/spannerfast/spannerfast/decode"
)

// PoisonByte is written over released frames when poisoning is on, so that code
// which keeps a raw value past its lifetime reads an obvious pattern.
const PoisonByte = 0xAA

// Frame is one encoded PartialResultSet.
type Frame struct {
	// Data is the message's wire encoding; valid until Release.
	Data []byte
	// Msg is Data scanned, valid when Scanned is set. The first reader that
	// needs the message's fields (the resume logic) scans it once for
	// everyone after it.
	Msg     decode.Message
	Scanned bool
	buf     mem.Buffer
}

// Scan fills f.Msg unless it is filled already.
func (f *Frame) Scan() error {
	if f.Scanned {
		return nil
	}
	if err := f.Msg.Scan(f.Data); err != nil {
		return err
	}
	f.Scanned = true
	return nil
}

// NewFrame wraps bytes the caller owns (tests, fixtures, the fake servers).
// Release on such a frame only drops the reference.
func NewFrame(b []byte) *Frame { return &Frame{Data: b} }

// Release gives the receive buffer back. With poison set, the bytes are
// overwritten first so that aliases kept past this point read PoisonByte.
func (f *Frame) Release(poison bool) {
	if f == nil {
		return
	}
	if poison {
		Poison(f.Data)
	}
	if f.buf != nil {
		f.buf.Free()
		f.buf = nil
	}
	f.Data = nil
	f.Msg = decode.Message{}
	f.Scanned = false
}

// Poison overwrites b with PoisonByte.
func Poison(b []byte) {
	for i := range b {
		b[i] = PoisonByte
	}
}
