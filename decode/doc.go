// Package decode turns Spanner PartialResultSet wire bytes into database/sql
// driver values. It knows nothing of connections or gRPC.
//
// The pieces, in the order bytes meet them:
//
//   - Message.Scan finds a PartialResultSet's fields in place.
//   - Merger yields complete values from a sequence of messages, joining
//     chunked_value continuations in memory it owns.
//   - PlanFor builds (once per result shape and Options, then from a lock-free
//     cache) a Plan: one small decoder function per column.
//   - RowDecoder runs a plan over one row's encoded values: with
//     DecodeNext straight out of the Merger's current message when the row
//     is whole in it, with Decode over values the Merger joined otherwise.
//
// # Go types
//
// Values follow go-sql-spanner: BOOL bool, INT64/ENUM int64 (PG_OID too),
// FLOAT64 float64, FLOAT32 float32, STRING string, BYTES/PROTO []byte (NULL
// is []byte(nil)), TIMESTAMP time.Time (UTC), DATE string ("YYYY-MM-DD"),
// UUID string, NUMERIC big.Rat (or string with NumericAsString; PG_NUMERIC
// always its text), JSON spanner.NullJSON (NULL is NullJSON{}; PG_JSONB
// spanner.PGJsonB), arrays
// []spanner.NullX ([]T with NativeArrays, for BOOL, INT64, ENUM, FLOAT32,
// FLOAT64, STRING, DATE, TIMESTAMP and UUID; [][]byte for BYTES; NUMERIC
// arrays are []spanner.NullNumeric whatever the options). Beyond
// go-sql-spanner: INTERVAL is spanner.Interval, STRUCT is spanner.NullRow,
// ARRAY<INTERVAL> is []spanner.NullInterval and ARRAY<STRUCT> is
// []spanner.NullRow. Other NULLs are nil.
//
// # Ownership
//
// Message, Value and Merger slices alias the bytes they were given and are
// valid only while those bytes are.
//
// Safe mode (default): every value RowDecoder produces owns its memory and
// stays valid forever. The numbers, strings and bytes of consecutive rows
// share 4 KiB chunks (a larger row gets a chunk of its own), so a kept value
// pins at most one chunk (or its own row), never a receive buffer, and about
// a hundred narrow rows cost one allocation.
//
// Raw mode (Options.Raw): STRING, DATE, UUID and NUMERIC-as-text values are
// []byte aliasing the message bytes; BYTES are decoded into, and numbers and
// timestamps boxed in, a slab reused for every row. All of them are valid
// only until the next Decode. Arrays, NUMERIC, JSON, INTERVAL and STRUCT
// values are freshly allocated in both modes, each in few allocations of
// its own: an array of fixed-size elements holds its slice header with its
// elements, ARRAY<STRING> copies all its bytes into one block, a NUMERIC
// of up to 18 digits keeps its words with its big.Rat, and a JSON
// document's numbers and strings share blocks (of at most 4 KiB; a JSON
// column's first block, sized from the document, is allocated with its
// NullJSON), a JSON array of up to four elements is one allocation, and a
// STRUCT's google.protobuf.Values are built from the wire in shared blocks
// and its spanner.Row made in place over them and the plan's field
// descriptions (shared by every row, never modified) rather than by
// proto.Unmarshal and spanner.NewRow (nullrow.go).
package decode
