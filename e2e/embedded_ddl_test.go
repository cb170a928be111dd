package e2e

import (
	"context"
	"slices"
	"testing"

	"cloud.google.com/go/spanner"
)

// TestEmbeddedDDL runs DDL end to end against the embedded server through
// database/sql: a table and an index made in one DDL batch, a column
// added by a single statement, rows written and read on the new schema,
// then the index and table dropped.
func TestEmbeddedDDL(t *testing.T) {
	ctx := context.Background()
	db := openEmbedded(t)
	c := dbConn(t, db)

	mustExec(t, c, "START BATCH DDL")
	mustExec(t, c, "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (SingerId)")
	mustExec(t, c, "CREATE INDEX SingersByName ON Singers (Name)")
	mustExec(t, c, "RUN BATCH")
	mustExec(t, c, "ALTER TABLE Singers ADD COLUMN Age INT64")

	name := func(s string) spanner.NullString { return spanner.NullString{StringVal: s, Valid: true} }
	mustExec(t, c, "START BATCH DML")
	mustExec(t, c, "INSERT INTO Singers (SingerId, Name, Age) VALUES (1, @name, 30)", name("Ann"))
	mustExec(t, c, "INSERT INTO Singers (SingerId, Name, Age) VALUES (2, @name, 40)", name("Bob"))
	mustExec(t, c, "RUN BATCH")

	rows, err := c.QueryContext(ctx, "SELECT Name, Age FROM Singers ORDER BY SingerId")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var n string
		var age int64
		if err := rows.Scan(&n, &age); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
		if (n == "Ann") != (age == 30) {
			t.Fatalf("%s has age %d", n, age)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if !slices.Equal(got, []string{"Ann", "Bob"}) {
		t.Fatalf("rows %v", got)
	}

	mustExec(t, c, "DROP INDEX SingersByName")
	mustExec(t, c, "DELETE FROM Singers WHERE true")
	mustExec(t, c, "DROP TABLE Singers")
	if _, err := c.ExecContext(ctx, "INSERT INTO Singers (SingerId) VALUES (3)"); err == nil {
		t.Fatal("insert into a dropped table succeeded")
	}
	// A DDL error from the server is returned, not swallowed.
	if _, err := c.ExecContext(ctx, "DROP TABLE Singers"); err == nil {
		t.Fatal("dropping a missing table succeeded")
	}
}
