// Package rows implements driver.Rows on top of package decode.
//
// A Rows pulls encoded PartialResultSets from a Stream, lets decode.Merger
// join chunked values, and decodes each row straight into the dest slice that
// database/sql passes to Next. The consumer path takes no lock.
//
// # Ownership
//
// Frames (receive buffers) belong to the Rows once Stream.Recv returns them.
// In safe mode a frame is released as soon as no value of the row being
// built aliases it. In raw mode the frames of the last returned row are kept
// until the next call to Next or Close, which is exactly how long raw values
// are valid; Close releases everything and cancels the stream.
package rows
