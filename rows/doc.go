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
//
// # Other results
//
// The other driver.Rows of the driver that need nothing of a connection
// live here too: Buffered (rows read completely before they are returned),
// Values and List (results made on the client), WithResultSets
// (go-sql-spanner's metadata and statistics result sets around a result)
// and Multi (the results of several statements, one result set each).
// They are used off the per-row path of an ordinary query; Rows knows none
// of them.
//
// This package must not know connections, transactions, statements or
// their options: whoever runs a statement passes what these results need
// (the two result-set flags, the rows to buffer). A wrapper of a Rows made
// elsewhere gives its metadata and statistics by implementing Encoded.
package rows
