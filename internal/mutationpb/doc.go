// Package mutationpb converts the official client's *spanner.Mutation values
// to their wire form (spannerpb.Mutation) for CommitRequest.mutations, and
// picks the BeginTransactionRequest.mutation_key a multiplexed session needs
// when a read-write transaction has only mutations. The driver's Apply and
// BufferWrite take spanner.Mutation values so users can reuse code written
// for the official client; this package is what lets it send them.
//
// # Approach
//
// The client builds Mutation values from unexported fields and converts them
// only through unexported code (mutationsProto, which calls each Mutation's
// proto method and then selectMutationProtoForRouting). Three ways to reach
// that conversion were weighed:
//
//   - Reflection over the Mutation's unexported fields (op, table, columns,
//     values, keySet, queue, key, payload, ...) and a rewrite of the
//     conversion around public pieces (spanner.NewRow for values). It would
//     still depend on internals (field names, and the numeric values of the
//     unexported op constants, which reflection reads as plain ints) and it
//     would duplicate rules that are not public: which Go types a mutation
//     accepts (stricter than NewRow), how key parts are widened, how key
//     sets, ranges and unions are encoded, Send/Ack, wrapped protos, the
//     mutation_key choice. Each copy is a place to diverge silently.
//   - Driving the client itself (a Client against an in-process server) to
//     capture its protos: exact, but far too costly per call.
//   - A pull //go:linkname to the client's own mutationsProto and
//     selectMutationProtoForRouting (chosen). The output is the client's by
//     construction, for every mutation kind and every value type, including
//     ones a later release adds, at the client's own cost. Pull linknames
//     to non-standard-library packages are allowed by the Go 1.23+ linker
//     (its -checklinkname restriction covers only the standard library).
//     The compiler always emits an out-of-line copy of a function, so
//     inlining inside the client does not remove the symbol, and -race
//     builds work unchanged.
//
// # Fragility and how it fails loudly
//
// A linkname binds by symbol name only. If a client release renames or
// removes one of the linked symbols (the two functions, and the version
// variable below), every build of the driver fails at link time
// ("relocation target ... not defined"). If a release keeps the name but
// changes the signature, the linker cannot tell and a call would corrupt
// memory, so every call first checks, once per process, that the linked
// client is exactly ValidatedClientVersion; otherwise Convert and
// MutationKey return FailedPrecondition and convert nothing. A library
// cannot rely on its own go.mod for this: the main module may select a
// newer client. The version comes from the client itself (the string its
// generated gRPC package sends in request headers, read by a third
// linkname, since runtime/debug.ReadBuildInfo lists no dependencies in test
// binaries); when the build info does list the client, it must agree and
// show no replace directive.
//
// Concurrency and aliasing are the client's: Convert is safe for
// concurrent use, and returns the protos of spanner.WrapMutation values
// themselves, which callers must not modify.
//
// Cost: the client's own, with no extra allocation. For a 5-column insert
// about 1.8µs, 28 allocations and 1.2 KB; 1,000 of them about 1.7-2 ms and
// 1.2 MB (BenchmarkConvert, BenchmarkClientConversion; 2-core machine).
//
// To move to a new client release: check in its mutation.go and
// apiv1/helpers.go that the linked declarations are unchanged, change
// ValidatedClientVersion, and run this package's tests.
// TestClientVersionPinned fails until then; TestMatchesOfficialClient and
// TestValuesMatchOfficialClient compare Convert with what that client sends
// to internal/fakespanner for every mutation kind and value type (accepted
// or rejected alike); TestGolden compares with the wire
// form saved in testdata/golden.binpb (regenerate with -update only after
// checking that a difference is the client's intent).
//
// # Errors
//
// The client reports a bad value without saying where. Convert returns an
// *Error (InvalidArgument, with Unwrap to the client's error) naming the
// mutation's index, its table (or queue) and the column, found on the error
// path by re-encoding each part alone (reading the Mutation's unexported
// fields by reflection, on that path only). A nil *spanner.Mutation, which the
// client would dereference, is an *Error too.
//
// Like the client, Convert does not check that the columns and values of a
// write have the same length; Spanner rejects such a mutation.
package mutationpb
