package e2e

import (
	"context"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// TestAPIClientHeader: every call the driver makes, data and admin, unary
// and streaming, carries x-goog-api-client once, in the official client's
// format (gl-go/<go> gccl/<library version> grpc/<grpc version>), with
// spannerfast's version.
func TestAPIClientHeader(t *testing.T) {
	want := transport.APIClientHeader()
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	if !regexp.MustCompile(`^gl-go/\S+ gccl/\S+ grpc/\S+$`).MatchString(want) ||
		!strings.HasPrefix(want, "gl-go/"+goVersion) ||
		!strings.Contains(want, " gccl/"+transport.Version+" ") ||
		!strings.HasSuffix(want, " grpc/"+grpc.Version) {
		t.Fatalf("x-goog-api-client %q; want gl-go/%s gccl/%s grpc/%s", want, goVersion, transport.Version, grpc.Version)
	}

	ctx := context.Background()
	s := fakespanner.Start(t)
	s.AddResult("SELECT 1", fakespanner.Select1())
	s.AddResult("UPDATE T SET a = 1 WHERE true", fakespanner.DML(1))
	addParts(s, []int{3, 2}, nil)
	db := openFake(t, s)
	c := dbConn(t, db)

	var one int64
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil { // CreateSession, ExecuteStreamingSql
		t.Fatal(err)
	}
	mustExec(t, c, "UPDATE T SET a = 1 WHERE true") // ExecuteSql, Commit
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "UPDATE T SET a = 1 WHERE true")
	if err := tx.Rollback(); err != nil { // Rollback
		t.Fatal(err)
	}
	mustExec(t, c, "START BATCH DML")
	mustExec(t, c, "UPDATE T SET a = 1 WHERE true")
	mustExec(t, c, "UPDATE T SET a = 1 WHERE true")
	mustExec(t, c, "RUN BATCH")                                          // ExecuteBatchDml
	mustExec(t, c, "SET autocommit_dml_mode = 'PARTITIONED_NON_ATOMIC'") // BeginTransaction
	mustExec(t, c, "UPDATE T SET a = 1 WHERE true")
	mustExec(t, c, "SET autocommit_dml_mode = 'TRANSACTIONAL'")
	rows, err := c.QueryContext(ctx, "RUN PARTITIONED QUERY "+partSQL) // PartitionQuery
	if err != nil {
		t.Fatal(err)
	}
	readParts(t, rows)
	mustExec(t, c, ddlTable)                     // UpdateDatabaseDdl, GetOperation
	mustExec(t, c, "CREATE DATABASE `other-db`") // CreateDatabase
	mustExec(t, c, "DROP DATABASE `other-db`")   // DropDatabase

	seen := map[string]bool{}
	for _, r := range s.Requests() {
		seen[r.Method] = true
		if got := r.Header.Get(transport.HeaderAPIClient); !slices.Equal(got, []string{want}) {
			t.Errorf("%s: x-goog-api-client %q, want [%q]", r.Method, got, want)
		}
	}
	for _, m := range []string{"CreateSession", "ExecuteStreamingSql", "ExecuteSql", "Commit", "Rollback", "BeginTransaction",
		"ExecuteBatchDml", "PartitionQuery", "UpdateDatabaseDdl", "GetOperation", "CreateDatabase", "DropDatabase"} {
		if !seen[m] {
			t.Errorf("no %s call was made; the test does not cover it", m)
		}
	}
}
