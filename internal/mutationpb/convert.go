package mutationpb

import (
	"fmt"
	"runtime/debug"
	"sync"
	_ "unsafe" // for go:linkname

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ClientModule and ValidatedClientVersion name the only official client
// release whose unexported conversion functions this package has been
// checked against (signatures read from its source, output compared with
// the protos that client sends). See the package doc.
const (
	ClientModule           = "cloud.google.com/go/spanner"
	ValidatedClientVersion = "v1.96.1"
)

// clientMutationsProto is the client's own conversion, the one Apply and
// ReadWriteTransaction.commit call: one proto per mutation, plus the
// mutation it picks as a multiplexed session's BeginTransaction
// mutation_key. A body-less declaration with a pull linkname binds to the
// client's symbol at link time; the compiler keeps an out-of-line copy of
// every function, so inlining in the client does not matter, and -race
// instruments the client's code as usual.
//
// The linker cannot check the signature: calling it against a client whose
// signature differs would corrupt memory. clientVersionErr guards every call.
//
//go:linkname clientMutationsProto cloud.google.com/go/spanner.mutationsProto
func clientMutationsProto(ms []*spanner.Mutation) ([]*spannerpb.Mutation, *spannerpb.Mutation, error)

// clientSelectMutationKey is the client's choice of mutation_key among
// converted mutations (a random non-insert one, else the insert with the
// most rows). It draws from math/rand, so the choice among non-inserts is
// not deterministic, in the client either.
//
//go:linkname clientSelectMutationKey cloud.google.com/go/spanner.selectMutationProtoForRouting
func clientSelectMutationKey(mutations []*spannerpb.Mutation) *spannerpb.Mutation

// clientLibVersion is the client's release as it reports it in request
// headers ("1.96.1"), set by the init of its generated gRPC package; every
// Google Cloud Go library's generated package has had this variable. It is
// read because runtime/debug.ReadBuildInfo lists no dependencies in test
// binaries (golang/go#33976), so build info alone would refuse every test
// of every user of the driver.
//
//go:linkname clientLibVersion cloud.google.com/go/spanner/apiv1.versionClient
var clientLibVersion string

// clientVersionErr is nil when the binary links the validated client
// release. A library cannot fix its dependency's version (the main module's
// go.mod may select a newer one), so this is checked at run time, once.
var clientVersionErr = sync.OnceValue(func() error {
	bi, ok := debug.ReadBuildInfo()
	return checkClientVersion(clientLibVersion, bi, ok)
})

// checkClientVersion returns a FailedPrecondition error unless the client
// reports the validated version and the build info, when it lists
// dependencies at all, shows that version without a replace directive (a
// fork keeps the version it was forked from).
func checkClientVersion(libVersion string, bi *debug.BuildInfo, ok bool) error {
	if "v"+libVersion != ValidatedClientVersion {
		return versionError(fmt.Sprintf("the client reports version %q", libVersion))
	}
	if !ok || bi == nil {
		return nil
	}
	for _, d := range bi.Deps {
		if d.Path != ClientModule {
			continue
		}
		if d.Replace != nil {
			return versionError(fmt.Sprintf("%s %s is replaced by %s %s", d.Path, d.Version, d.Replace.Path, d.Replace.Version))
		}
		if d.Version != ValidatedClientVersion {
			return versionError(fmt.Sprintf("binary links %s %s", d.Path, d.Version))
		}
	}
	return nil
}

func versionError(why string) error {
	return status.Errorf(codes.FailedPrecondition,
		"spannerfast: mutations are supported only with %s %s (%s); the conversion uses that client's internals",
		ClientModule, ValidatedClientVersion, why)
}

// Convert returns the wire form of ms, exactly as the official client builds
// it for CommitRequest.mutations, and the mutation the client would send as
// BeginTransactionRequest.mutation_key on a multiplexed session (nil when ms
// is empty).
//
// A nil mutation or a value the client cannot encode gives an *Error
// (InvalidArgument) naming the mutation's index, table and column. A binary
// linking another client version gets FailedPrecondition and no conversion.
// Protos of mutations made with spanner.WrapMutation are returned as given,
// not copied, as the client does.
func Convert(ms []*spanner.Mutation) (pbs []*spannerpb.Mutation, key *spannerpb.Mutation, err error) {
	if err := clientVersionErr(); err != nil {
		return nil, nil, err
	}
	for i, m := range ms {
		if m == nil {
			// The client would dereference it and panic.
			return nil, nil, &Error{Index: i, Err: errNilMutation}
		}
	}
	pbs, key, err = clientMutationsProto(ms)
	if err != nil {
		return nil, nil, locate(ms, err)
	}
	return pbs, key, nil
}

// MutationKey picks the mutation_key for a BeginTransaction among already
// converted mutations, as the client does at commit; for buffers converted
// piecewise. It returns nil for no mutations.
func MutationKey(pbs []*spannerpb.Mutation) (*spannerpb.Mutation, error) {
	if err := clientVersionErr(); err != nil {
		return nil, err
	}
	for i, pb := range pbs {
		if pb == nil {
			return nil, &Error{Index: i, Err: errNilMutation}
		}
	}
	return clientSelectMutationKey(pbs), nil
}
