package transport

import (
	"runtime/debug"
	"sync"

	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc"
)

// Version is the version of this source tree. When spannerfast is built as
// a dependency of a module with a released (or pseudo) version, the
// x-goog-api-client header reports that version from the build
// information instead, which cannot go stale.
const Version = "0.1.0"

// modulePath is spannerfast's module path, looked up in the build
// information.
const modulePath = "github.com/spannerfast/spannerfast"

// HeaderAPIClient names the header that identifies the client library,
// its version and its runtime to Spanner, on every call, as the official
// client sends it ("gl-go/<go> gccl/<library> grpc/<grpc>"). Some servers
// check it: go-sql-spanner's in-memory test server refuses admin calls
// without "gl-go/".
const HeaderAPIClient = "x-goog-api-client"

// apiClientHeader is the header's value, computed once (the request
// metadata it goes into is built once per client).
var apiClientHeader = sync.OnceValue(func() string {
	return gax.XGoogHeader("gl-go", gax.GoVersion, "gccl", moduleVersion(), "grpc", grpc.Version)
})

// APIClientHeader returns the value of x-goog-api-client that every request
// carries: "gl-go/<Go version> gccl/<spannerfast version> grpc/<grpc-go
// version>". The user agent ("spannerfast/...") names the library.
func APIClientHeader() string { return apiClientHeader() }

// moduleVersion is spannerfast's version: the one the build selected when it
// is a dependency with a version, else Version (main module, a replace
// directive to a directory, tests).
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	for _, m := range info.Deps {
		if m.Path != modulePath {
			continue
		}
		if m.Replace != nil {
			m = m.Replace
		}
		if v := m.Version; v != "" && v != "(devel)" {
			if v[0] == 'v' {
				v = v[1:]
			}
			return v
		}
	}
	return Version
}
