package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

// TestObservabilityExample runs the example, as `go run
// ./examples/observability` does, on the embedded server and on the
// emulator, and checks what it printed: the transaction's span with its
// statements and commit as children, with their attributes, and the
// driver's metrics after it.
func TestObservabilityExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		var buf bytes.Buffer
		if err := run(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		for _, want := range []string{
			`span cloud.google.com/go/spanner.ReadWriteTransaction
    db.operation.name = ReadWriteTransaction
    spanner.transaction.end = commit
  span cloud.google.com/go/spanner.Update
      db.operation.name = Update
      db.query.text = INSERT INTO Accounts (Id, Owner, Balance) VALUES (1, 'alice', 100), (2, 'bob', 50)
      spanner.rows_affected = 2
      x_goog_spanner_request_id = <varies>
  span cloud.google.com/go/spanner.Query
      db.operation.name = Query
      db.query.text = SELECT SUM(Balance) FROM Accounts
      db.response.returned_rows = 1
      x_goog_spanner_request_id = <varies>
  span cloud.google.com/go/spanner.Update
      db.operation.name = Update
      db.query.text = UPDATE Accounts SET Balance = Balance + 10 WHERE Id = 2
      spanner.rows_affected = 1
      x_goog_spanner_request_id = <varies>
  span cloud.google.com/go/spanner.Commit
      db.operation.name = Commit
`,
			"metric db.client.operation.duration (s)\n",
			"    {db.operation.name=ReadWriteTransaction}: count 1\n",
			"metric spannerfast.rpc.attempt.duration (s)\n",
			"    {rpc.grpc.status_code=0, rpc.method=Commit}: count 1\n",
			// Every result and connection was closed at the end.
			"metric spannerfast.rows.open ({rows})\n    {}: 0\n",
			"metric spannerfast.connections.open ({connection})\n    {}: 0\n",
			"metric spanner/client/operation_count (1)\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
		// The commit, one operation of one attempt in the official
		// client's metrics.
		for _, re := range []string{
			`metric spanner/client/operation_count \(1\)\n(    .*\n)*    \{.*method=Spanner\.Commit, .*status=OK\}: 1\n`,
			`metric spanner/client/attempt_count \(1\)\n(    .*\n)*    \{.*method=Spanner\.Commit, .*status=OK\}: 1\n`,
			`metric spannerfast.response.decoded_bytes \(By\)\n    \{\}: [1-9][0-9]*\n`,
		} {
			if !regexp.MustCompile(re).MatchString(got) {
				t.Errorf("output does not match %q:\n%s", re, got)
			}
		}
	})
}
