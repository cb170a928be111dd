package conn

import "testing"

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind statementKind
	}{
		{"SELECT 1", kindQuery},
		{"  -- c\n /* c */ @{FORCE_INDEX=x} select 1", kindQuery},
		{"WITH t AS (SELECT 1) SELECT * FROM t", kindQuery},
		{"insert into T (a) values (1)", kindDML},
		{"CREATE TABLE T (a INT64) PRIMARY KEY (a)", kindDDL},
		{"SET RAW_DECODE = true", kindClientSet},
		{"show variable raw_decode", kindClientShow},
		{"RESET raw_decode", kindClientReset},
		{"begin transaction", kindClientBegin},
		{"COMMIT", kindClientCommit},
		{"rollback", kindClientRollback},
		{"START BATCH DML", kindBatchStart},
		{"START TRANSACTION", kindBatchStart}, // GoogleSQL has no START TRANSACTION
		{"RUN BATCH", kindBatchRun},
		{"ABORT BATCH", kindBatchAbort},
		{"@{x=1} delete from T where true", kindDML},
	} {
		if got, err := parseStatement(c.in); err != nil || got.kind != c.kind {
			t.Errorf("parseStatement(%q) = %v, %v; want %v", c.in, got.kind, err, c.kind)
		}
	}
}
