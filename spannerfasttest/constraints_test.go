package spannerfasttest

import (
	"testing"

	"google.golang.org/grpc/codes"
)

func TestUniqueIndexIsEnforced(t *testing.T) {
	r := newRaw(t)
	if err := r.srv.CreateTables(t.Context(),
		"CREATE UNIQUE INDEX TByB ON T (b)",
		"CREATE UNIQUE NULL_FILTERED INDEX TByC ON T (c)"); err != nil {
		t.Fatal(err)
	}
	r.mustExec("INSERT INTO T (a, b, c) VALUES (1, 'x', 1), (2, 'y', NULL)", 2, nil, nil)
	_, err := r.exec("INSERT INTO T (a, b) VALUES (3, 'x')", nil, nil)
	wantCode(t, err, codes.AlreadyExists, "TByB")
	_, err = r.exec("UPDATE T SET c = 1 WHERE a = 2", nil, nil)
	wantCode(t, err, codes.AlreadyExists, "TByC")
	// NULL is a key like any other, except in a NULL_FILTERED index.
	r.mustExec("INSERT INTO T (a, b, c) VALUES (3, NULL, NULL)", 1, nil, nil)
	_, err = r.exec("INSERT INTO T (a) VALUES (4)", nil, nil)
	wantCode(t, err, codes.AlreadyExists, "TByB")
	// A write that leaves the keys distinct in the end is fine.
	r.mustExec("INSERT OR UPDATE INTO T (a, b, c) VALUES (1, 'y', 1), (2, 'x', NULL)", 2, nil, nil)
	r.wantRows("SELECT a, b, c FROM T ORDER BY a", "1,y,1", "2,x,NULL", "3,NULL,NULL")
}

func TestCheckConstraintIsEnforced(t *testing.T) {
	r := newRaw(t)
	if err := r.srv.CreateTables(t.Context(), "ALTER TABLE T ADD CONSTRAINT Positive CHECK (c > 0)"); err != nil {
		t.Fatal(err)
	}
	r.mustExec("INSERT INTO T (a, c) VALUES (1, 1.5), (2, NULL)", 2, nil, nil)
	_, err := r.exec("UPDATE T SET c = -1 WHERE a = 1", nil, nil)
	wantCode(t, err, codes.OutOfRange, "Positive")
	_, err = r.exec("INSERT INTO T (a, c) VALUES (3, 0)", nil, nil)
	wantCode(t, err, codes.OutOfRange, "Positive")
	r.wantRows("SELECT a, c FROM T ORDER BY a", "1,1.5", "2,NULL")
}
