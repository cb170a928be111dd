package spannerfasttest

import "testing"

func TestNormalizeTimestamps(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT TIMESTAMP '2024-01-02T03:04:05.123456Z'":             "SELECT TIMESTAMP '2024-01-02 03:04:05.123456+00:00'",
		"SELECT timestamp \"2024-01-02T05:04:05+02:00\", 'x'":        "SELECT timestamp \"2024-01-02 03:04:05.000000+00:00\", 'x'",
		"SELECT TIMESTAMP '2024-01-02 03:04:05'":                     "SELECT TIMESTAMP '2024-01-02 03:04:05'",
		"SELECT 'TIMESTAMP ''2024-01-02T03:04:05Z''' AS `timestamp`": "SELECT 'TIMESTAMP ''2024-01-02T03:04:05Z''' AS `timestamp`",
		"SELECT TIMESTAMP 'nonsense'":                                "SELECT TIMESTAMP 'nonsense'",
		"SELECT TIMESTAMP":                                           "SELECT TIMESTAMP",
	} {
		if got := normalizeTimestamps(in); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestRFC3339TimestampLiterals(t *testing.T) {
	r := newRaw(t)
	if err := r.srv.CreateTables(t.Context(), "CREATE TABLE TS (Id INT64 NOT NULL, T TIMESTAMP) PRIMARY KEY (Id)"); err != nil {
		t.Fatal(err)
	}
	r.mustExec("INSERT INTO TS (Id, T) VALUES (1, TIMESTAMP '2024-01-02T03:04:05.123456Z')", 1, nil, nil)
	r.mustExec("UPDATE TS SET T = TIMESTAMP '2024-01-02T04:04:05.123456+01:00' WHERE Id = 1", 1, nil, nil)
	r.wantRows("SELECT T FROM TS", "2024-01-02T03:04:05.123456Z")
}
