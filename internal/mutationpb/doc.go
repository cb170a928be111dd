// Package mutationpb converts the official client's *spanner.Mutation values
// to their wire form (spannerpb.Mutation) for CommitRequest.mutations, and
// picks the BeginTransactionRequest.mutation_key a multiplexed session needs
// when a read-write transaction has only mutations. The driver's Apply and
// BufferWrite take spanner.Mutation values so users can reuse code written
// for the official client; this package is what lets it send them.
//
// # Approach
//
// The client converts a Mutation only in unexported code, and keeps what
// its constructor was given in unexported fields. This package works with
// every client release from MinClientVersion on, without linking to the
// client's unexported functions:
//
//   - Values are encoded by the client's own encoder through public API:
//     spanner.NewRow runs the encoder mutations use, and Row.ColumnValue
//     returns each encoded value. Every value type the client knows, in any
//     release (scalars, pointers, Null* types, slices, civil.Date,
//     time.Time, big.Rat, NullJSON, PGNumeric, protos and enums,
//     GenericColumnValue, Encoder and convertible user types), is therefore
//     encoded exactly as the client does. The scalar types most rows hold
//     (nil, string, int, int64, bool, float64, []byte, time.Time) are the
//     exception: their encoding is a fixed rule of the wire format,
//     written out in fastKind (encode.go), because NewRow costs four times
//     the allocations; TestValuesMatchOfficialClient holds them to the
//     client's encoding like every other type.
//   - Two of the client's rules that NewRow does not apply are written out
//     here (encode.go): which Go types a mutation value may have (a Go
//     struct, for one, encodes but is refused), and how key parts are
//     widened (int32 to int64) or refused (uint64). A later release that
//     accepts a new type is refused here with the client's own message
//     until this list learns it; TestValuesMatchOfficialClient tells.
//   - The Mutation's fields are found once per process by name and type
//     through reflection and read at those offsets (layout.go). The
//     numbers of the unexported op constants are learnt from the public
//     constructors (spanner.Insert, ...), never assumed. A release that
//     renames a field or changes its type makes Convert fail with
//     FailedPrecondition naming the field, never convert by guesswork; a
//     release that adds a field is fine while that field is zero in the
//     mutation at hand, and otherwise refused (FailedPrecondition naming
//     it) rather than ignored.
//   - Before its first conversion the package converts one mutation of
//     every kind made by the public constructors and compares the result
//     with the wire form written out in selfcheck.go, catching a release
//     that keeps a field but changes what it means.
//   - The mutation_key choice (a random non-insert, else the insert with
//     the most rows) is the client's rule, written out in selectKey.
//
// An earlier version called the client's conversion through //go:linkname
// and had to refuse every release but the one whose signatures it had
// checked (a signature change would corrupt memory, and a moved symbol
// would fail every build). Reading fields by reflection cannot corrupt
// memory and always links.
//
// Tests: TestMatchesOfficialClient and TestValuesMatchOfficialClient
// compare Convert with what the linked client sends to internal/fakespanner
// for every mutation kind, key set shape, key part and value type (accepted
// or rejected alike), so they hold for whichever client release the module
// graph selects; CI runs them with the newest release too (.ci/run).
// TestGolden compares with the wire form saved in testdata/golden.binpb
// (regenerate with -update only after checking that a difference is the
// client's intent).
//
// Concurrency and aliasing: Convert is safe for concurrent use, and returns
// the protos of spanner.WrapMutation values themselves, which callers must
// not modify.
//
// Cost: a 5-column insert of scalar values takes 14 allocations and about
// 700 B (BenchmarkConvert), against the client's own conversion's 28 and
// 1.2 KB; through NewRow it took 36 and 1.7 KB (NewRow also builds a
// column type per value, which mutations do not need).
//
// # Errors
//
// The client reports a bad value without saying where. Convert returns an
// *Error (InvalidArgument, with Unwrap to the client's *spanner.Error)
// naming the mutation's index, its table (or queue) and the column, or
// "key" / "payload". A nil *spanner.Mutation, a nil member of KeySets and
// a panic while encoding a value (in a user's Encoder), on all of which
// the client would panic, are an *Error too.
//
// Like the client, Convert does not check that the columns and values of a
// write have the same length; Spanner rejects such a mutation.
package mutationpb
