package conn

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestParseBatchStatement: the accepted forms, and errors naming the
// position of the offending text.
func TestParseBatchStatement(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		kind    batchKind
		errText string // "" = accepted
	}{
		{sql: "START BATCH DDL", kind: batchDDL},
		{sql: " start  batch\tdml ;", kind: batchDML},
		{sql: "/* c */ START BATCH DML -- trailing\n", kind: batchDML},
		{sql: "RUN BATCH"},
		{sql: "abort batch;"},
		{sql: "START BATCH", errText: "expected START BATCH DDL or START BATCH DML"},
		{sql: "START BATCH XML", errText: "expected START BATCH DDL or START BATCH DML"},
		{sql: "START TRANSACTION", errText: "expected START BATCH"},
		{sql: "RUN BATCH NOW  ", errText: `unexpected "NOW"`},
		{sql: "ABORT", errText: "expected ABORT BATCH"},
	} {
		st, err := (&Conn{}).parse(tc.sql)
		if err != nil {
			t.Fatalf("%q: %v", tc.sql, err)
		}
		if st.kind != kindBatchStart && st.kind != kindBatchRun && st.kind != kindBatchAbort {
			t.Fatalf("%q classified as %v", tc.sql, st.kind)
		}
		kind, err := batchStatementKind(st)
		if tc.errText == "" {
			if err != nil || kind != tc.kind {
				t.Errorf("%q: %v, %v; want %v", tc.sql, kind, err, tc.kind)
			}
			continue
		}
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.errText) {
			t.Errorf("%q: %v; want InvalidArgument mentioning %q", tc.sql, err, tc.errText)
		}
	}
}

// TestInBatch: inBatch (what BeginTx must check) reports a batch of either
// kind, and a transaction's DML batch ends with the transaction.
func TestInBatch(t *testing.T) {
	c := &Conn{}
	if c.inBatch() {
		t.Fatal("new connection in a batch")
	}
	if err := c.startBatchDDL(); err != nil || !c.inBatch() || !c.InDDLBatch() {
		t.Fatalf("after StartBatchDDL: %v, inBatch %v", err, c.inBatch())
	}
	c.abortBatch()
	if err := c.startBatchDML(); err != nil || !c.inBatch() || !c.InDMLBatch() {
		t.Fatalf("after StartBatchDML: %v, inBatch %v", err, c.inBatch())
	}
	if err := c.startBatchDML(); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("second StartBatchDML: %v", err)
	}
	c.batch = nil
	c.tx = &txn{}
	if err := c.startBatchDML(); err != nil || !c.inBatch() {
		t.Fatalf("StartBatchDML in a transaction: %v", err)
	}
	c.tx = nil // the transaction ended
	if c.inBatch() || c.batch != nil {
		t.Fatal("a transaction's batch outlived it")
	}
}
