// Package workload defines the result sets of spannerfast-bench and encodes
// them as PartialResultSet wire bytes.
//
// A Workload is a column list, a row count per query and a query count per
// measurement. Values are generated deterministically from (workload, row,
// column), so the fake server process and the benchmark process agree on
// every value without exchanging them: Cell gives the wire form (exactly the
// text forms of the Spanner protocol: INT64 as a decimal string_value,
// FLOAT64 as number_value, TIMESTAMP as RFC 3339 UTC with 0-9 fraction
// digits, DATE as YYYY-MM-DD, BYTES as padded standard base64, NUMERIC as a
// plain decimal, JSON as normalized text, ARRAY<INT64> as a list_value of
// string_values), and GoValue the value an application scans it into,
// which is also what a database/sql driver hands over (DATE a civil.Date,
// as go-sql-spanner and spannerfast give it).
//
// Encode builds the messages of one query: about 1 MiB each, metadata on
// the first, a resume token on every one, last on the final one. Chunked
// workloads end every message but the last in the middle of a value
// (chunked_value), splitting strings and, for ARRAY<INT64>, a string element
// inside the list. Cyclic workloads (narrow5m) repeat their rows with a
// period of a few messages, so that the encoded bodies can be shared and a
// 5 M row result takes a few MiB of server memory.
//
// Ownership: the byte slices of returned Messages may be shared between
// messages and are never modified after Encode returns.
package workload
