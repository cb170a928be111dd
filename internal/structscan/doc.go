// Package structscan decodes STRUCT and ARRAY<STRUCT> query values into Go
// structs: the sql.Scanner values behind driver.Struct and driver.Structs.
//
// It reads what the driver's Next already put into dest for such a column
// (spanner.NullRow, []spanner.NullRow, or nil for NULL), so Scan into
// *spanner.NullRow, *[]spanner.NullRow and *any keeps working unchanged.
// Those values own their memory in every decode mode (their strings were
// copied out of the receive buffer by proto unmarshalling), so a Go struct
// filled from them never aliases a receive buffer, raw mode included, and
// its strings are those values' strings, not copies.
//
// Fields match by the official client's rules (Row.ToStruct): a
// `spanner:"name"` tag, else the Go field name, compared exactly first and
// then ignoring case; `spanner:"-"` skips a field; unexported fields are
// ignored but the exported fields of embedded structs (pointers included)
// are promoted, and a name at a shallower depth, or tagged, wins over
// others of its depth, while two equal candidates hide each other. Every
// STRUCT field must find a Go field; Go fields without a STRUCT field stay
// zero (a scan fills a zero struct, where ToStruct leaves them as they
// were). A STRUCT field without a name, or two with the same name, are
// errors. A nil embedded pointer is allocated (ToStruct panics).
//
// The mapping from a STRUCT shape to the Go struct's fields and their
// decoders is built once per (Go type, shape) and cached; a scan checks the
// shape against the cached plan by comparing field names and types
// and then decodes without reflection beyond the field decoders' own.
//
// It knows nothing of connections, rows or the wire format.
package structscan
