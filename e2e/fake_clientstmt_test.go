package e2e

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakeShowVariableTyped: SHOW VARIABLE answers with go-sql-spanner's
// types and spellings, in a column named as the statement wrote the name.
func TestFakeShowVariableTyped(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s, "read_only_staleness=EXACT_STALENESS 10s", "auto_batch_dml_update_count=3")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tt := range []struct {
		name string
		want any
	}{
		{"retry_aborts_internally", true},
		{"RETRY_ABORTS_INTERNALLY", true},
		{"spanner.auto_batch_dml", false},
		{"auto_batch_dml_update_count", int64(3)},
		{"max_partitions", int64(0)},
		{"autocommit_dml_mode", "Transactional"},
		{"isolation_level", "Default"},
		{"read_only_staleness", "(exactStaleness: 10s)"},
		{"rpc_priority", "PRIORITY_UNSPECIFIED"},
		{"read_lock_mode", "READ_LOCK_MODE_UNSPECIFIED"},
		{"ddl_execution_mode", "SYNC"},
		{"ddl_async_wait_timeout", "10s"},
		{"statement_timeout", "0s"},
		{"database_dialect", "GOOGLE_STANDARD_SQL"},
		{"directed_read", ""},
		{"num_channels", "4"},
		{"commit_response", ""},
	} {
		rows, err := c.QueryContext(ctx, "SHOW VARIABLE "+tt.name)
		if err != nil {
			t.Errorf("SHOW VARIABLE %s: %v", tt.name, err)
			continue
		}
		cols, _ := rows.Columns()
		var got any
		if !rows.Next() {
			t.Errorf("SHOW VARIABLE %s: no row", tt.name)
		} else if err := rows.Scan(&got); err != nil {
			t.Errorf("SHOW VARIABLE %s: %v", tt.name, err)
		}
		if rows.Next() {
			t.Errorf("SHOW VARIABLE %s: more than one row", tt.name)
		}
		rows.Close()
		if len(cols) != 1 || cols[0] != tt.name {
			t.Errorf("SHOW VARIABLE %s: columns %q, want [%s]", tt.name, cols, tt.name)
		}
		if got != tt.want {
			t.Errorf("SHOW VARIABLE %s = %#v (%T), want %#v (%T)", tt.name, got, got, tt.want, tt.want)
		}
	}
	// Nothing has committed or been read: NULL timestamps.
	for _, name := range []string{"commit_timestamp", "read_timestamp"} {
		var ts sql.NullTime
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE "+name).Scan(&ts); err != nil || ts.Valid {
			t.Errorf("SHOW VARIABLE %s = %v, %v; want NULL", name, ts, err)
		}
	}
}

// TestFakeSetResetResults: SET and RESET give driver.ResultNoRows through
// ExecContext and an empty result through QueryContext.
func TestFakeSetResetResults(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s, "max_partitions=5")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, stmt := range []string{"SET max_partitions = 7", "RESET max_partitions", "SET my_ext.p = 'v'"} {
		res, err := c.ExecContext(ctx, stmt)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if n, err := res.RowsAffected(); err == nil {
			t.Errorf("%s: RowsAffected() = %d, nil; want the error of driver.ResultNoRows", stmt, n)
		}
		rows, err := c.QueryContext(ctx, stmt)
		if err != nil {
			t.Fatalf("QueryContext(%s): %v", stmt, err)
		}
		if cols, _ := rows.Columns(); len(cols) != 0 || rows.Next() {
			t.Errorf("QueryContext(%s) returned columns %q or a row", stmt, cols)
		}
		rows.Close()
	}
	var n int64
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE max_partitions").Scan(&n); err != nil || n != 5 {
		t.Errorf("max_partitions after RESET = %d, %v; want the DSN's 5", n, err)
	}
	if _, err := c.ExecContext(ctx, "SET max_partitions = NULL"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE max_partitions").Scan(&n); err != nil || n != 0 {
		t.Errorf("max_partitions after SET NULL = %d, %v; want the default 0", n, err)
	}
}

// TestFakeExtensionVariables: a name with a dot is an extension variable,
// kept as text per connection; unknown names are errors, as in
// go-sql-spanner.
func TestFakeExtensionVariables(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET my_extension.my_property = 'some value'"); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE My_Extension.My_Property").Scan(&v); err != nil || v != "some value" {
		t.Errorf("SHOW VARIABLE my_extension.my_property = %q, %v", v, err)
	}
	// Another connection does not see it.
	c2, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	wantCode := func(what string, err error, code codes.Code, mention string) {
		t.Helper()
		if status.Code(err) != code || !strings.Contains(err.Error(), mention) {
			t.Errorf("%s: %v (%v), want %v naming %q", what, err, status.Code(err), code, mention)
		}
	}
	err = c2.QueryRowContext(ctx, "SHOW VARIABLE my_extension.my_property").Scan(&v)
	wantCode("SHOW of an unset extension variable", err, codes.InvalidArgument, "my_extension.my_property")
	if _, err := c.ExecContext(ctx, "RESET my_extension.my_property"); err != nil {
		t.Fatal(err)
	}
	err = c.QueryRowContext(ctx, "SHOW VARIABLE my_extension.my_property").Scan(&v)
	wantCode("SHOW after RESET of an extension variable", err, codes.InvalidArgument, "my_extension.my_property")

	_, err = c.ExecContext(ctx, "SET no_such_property = 1")
	wantCode("SET of an unknown property", err, codes.InvalidArgument, "no_such_property")
	err = c.QueryRowContext(ctx, "SHOW VARIABLE no_such_property").Scan(&v)
	wantCode("SHOW of an unknown property", err, codes.InvalidArgument, "no_such_property")
	_, err = c.ExecContext(ctx, "SET num_channels = 2")
	wantCode("SET of a startup property", err, codes.FailedPrecondition, "num_channels")
	_, err = c.ExecContext(ctx, "SET commit_timestamp = '2024-01-01T00:00:00Z'")
	wantCode("SET of a read-only property", err, codes.FailedPrecondition, "commit_timestamp")
	_, err = c.ExecContext(ctx, "SET ddl_execution_mode = 'SOMETIMES'")
	wantCode("SET of a bad value", err, codes.InvalidArgument, "ddl_execution_mode")
	if !errors.Is(err, dsn.ErrInvalidValue) {
		t.Errorf("SET of a bad value: %v is not dsn.ErrInvalidValue", err)
	}
}

// TestFakeDSNErrorCodes: a read-only property in the DSN is
// FailedPrecondition, a bad value InvalidArgument.
func TestFakeDSNErrorCodes(t *testing.T) {
	s := fakespanner.Start(t)
	for _, tt := range []struct {
		prop string
		code codes.Code
	}{
		{"commit_timestamp=2024-01-01T00:00:00Z", codes.FailedPrecondition},
		{"commit_response=x", codes.FailedPrecondition},
		{"read_timestamp=x", codes.FailedPrecondition},
		{"connect_timeout=soon", codes.InvalidArgument},
	} {
		db, err := sql.Open("spannerfast", fakeDSN(s, tt.prop))
		if err == nil {
			db.Close()
			t.Errorf("sql.Open with %s succeeded", tt.prop)
			continue
		}
		name, _, _ := strings.Cut(tt.prop, "=")
		if status.Code(err) != tt.code || !strings.Contains(err.Error(), name) {
			t.Errorf("sql.Open with %s: %v (%v), want %v naming %s", tt.prop, err, status.Code(err), tt.code, name)
		}
	}
}
