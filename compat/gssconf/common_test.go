// Common helpers for the conformance suite. Every test in this package talks
// to the driver only through database/sql; the driver under test is chosen by
// the CONF_DRIVER environment variable ("spanner" = go-sql-spanner,
// "spannerfast" = spannerfast). Default: "spanner".
package gssconf

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	_ "github.com/googleapis/go-sql-spanner"
	"github.com/googleapis/go-sql-spanner/testutil"
	_ "github.com/spannerfast/spannerfast/driver"
	"google.golang.org/grpc/codes"
	gstatus "google.golang.org/grpc/status"
)

func init() {
	// Same as go-sql-spanner's own test helpers: no client option logging.
	if _, found := os.LookupEnv("GOOGLE_CLOUD_SPANNER_DISABLE_LOG_CLIENT_OPTIONS"); !found {
		_ = os.Setenv("GOOGLE_CLOUD_SPANNER_DISABLE_LOG_CLIENT_OPTIONS", "true")
	}
}

// testDriverName returns the database/sql driver name under test.
func testDriverName() string {
	if d := os.Getenv("CONF_DRIVER"); d != "" {
		return d
	}
	return "spanner"
}

func isSpannerfast() bool { return testDriverName() == "spannerfast" }

func silentClose(c io.Closer) {
	_ = c.Close()
}

// testDSN is the DSN that go-sql-spanner's own mock-server tests use.
func testDSN(server *testutil.MockedSpannerInMemTestServer, params string) string {
	return fmt.Sprintf("%s/projects/p/instances/i/databases/d?useplaintext=true;%s", server.Address, params)
}

func setupTestDBConnection(t testing.TB) (db *sql.DB, server *testutil.MockedSpannerInMemTestServer, teardown func()) {
	return setupTestDBConnectionWithParams(t, "")
}

func setupTestDBConnectionWithDialect(t testing.TB, dialect databasepb.DatabaseDialect) (db *sql.DB, server *testutil.MockedSpannerInMemTestServer, teardown func()) {
	return setupTestDBConnectionWithParamsAndDialect(t, "", dialect)
}

func setupTestDBConnectionWithParams(t testing.TB, params string) (db *sql.DB, server *testutil.MockedSpannerInMemTestServer, teardown func()) {
	return setupTestDBConnectionWithParamsAndDialect(t, params, databasepb.DatabaseDialect_GOOGLE_STANDARD_SQL)
}

func setupTestDBConnectionWithParamsAndDialect(t testing.TB, params string, dialect databasepb.DatabaseDialect) (db *sql.DB, server *testutil.MockedSpannerInMemTestServer, teardown func()) {
	server, _, serverTeardown := testutil.NewMockedSpannerInMemTestServer(t)
	server.SetupSelectDialectResult(dialect)
	db, err := sql.Open(testDriverName(), testDSN(server, params))
	if err != nil {
		serverTeardown()
		t.Fatal(err)
	}
	return db, server, func() {
		_ = db.Close()
		serverTeardown()
	}
}

// ErrAbortedDueToConcurrentModification mirrors the error value that
// go-sql-spanner returns when an internal retry of an aborted transaction sees
// different results. In the binaries that run.sh builds, the API shim's
// init (api_spanner_test.go / api_spannerfast_test.go) replaces it by the
// driver's own exported value, so sameErr's errors.Is compares identity
// with that driver's sentinel, as go-sql-spanner's tests do with theirs;
// without the shim, code and message are compared.
var ErrAbortedDueToConcurrentModification = gstatus.Error(codes.Aborted, "Transaction was aborted due to a concurrent modification")

// sameErr reports whether got matches want: both nil, or the same gRPC code
// and message (an error that wraps a status matches too).
func sameErr(got, want error) bool {
	if got == nil || want == nil {
		return got == want
	}
	if errors.Is(got, want) {
		return true
	}
	gs, ok1 := gstatus.FromError(got)
	ws, ok2 := gstatus.FromError(want)
	return ok1 && ok2 && gs.Code() == ws.Code() && gs.Message() == ws.Message()
}

// sameCode reports whether got has the gRPC code of want (both nil, or both
// non-nil with the same code). Used for go-sql-spanner's unexported error
// values whose text is implementation-specific (errNoLastInsertId,
// errInvalidDmlForExecContext): the port checks the error class, not the
// wording.
func sameCode(got, want error) bool {
	if got == nil || want == nil {
		return got == want
	}
	return gstatus.Code(got) == gstatus.Code(want)
}

// directExecute stands in for go-sql-spanner's ExecOptions{DirectExecuteQuery:
// true}: it makes the query run now, whether the driver executes in
// QueryContext (spannerfast) or on the first Next (go-sql-spanner), by
// reading the first row. The error of that first step is returned like an
// error of QueryContext. The returned rows have lost their first row.
func directExecute(rows *sql.Rows, err error) (*sql.Rows, error) {
	if err != nil {
		return rows, err
	}
	if !rows.Next() {
		if e := rows.Err(); e != nil {
			_ = rows.Close()
			return nil, e
		}
	}
	return rows, nil
}
