package e2e

import (
	"testing"

	"google.golang.org/grpc/codes"
)

// TestEmulatorSendTypedStrings: by default a string argument goes untyped
// and Spanner takes it as the type its place needs (an INT64 here); with
// send_typed_strings it is a STRING, which INT64 arithmetic refuses, and
// which stands where nothing gives a type (SELECT @p) as the string it is,
// where untyped it fails.
func TestEmulatorSendTypedStrings(t *testing.T) {
	ctx := emuCtx(t)
	untyped, edb := emuDB(t, nil)
	typed := emuOpen(t, edb.DSN("send_typed_strings=true"))
	const intQuery = "SELECT @n + 1"
	if got := emuInt64s(t, ctx, untyped, intQuery, "41"); len(got) != 1 || got[0] != 42 {
		t.Fatalf("untyped string as an INT64: %v", got)
	}
	var s string
	err := typed.QueryRowContext(ctx, intQuery, "41").Scan(&s)
	emuWantCode(t, err, codes.InvalidArgument)
	if got := emuColumn[string](t, ctx, typed, "SELECT @p", "hello"); len(got) != 1 || got[0] != "hello" {
		t.Fatalf("typed SELECT @p: %v", got)
	}
	// Untyped, nothing says what @p is: the emulator takes it as an INT64
	// and fails, as go-sql-spanner's property description warns.
	err = untyped.QueryRowContext(ctx, "SELECT @p", "hello").Scan(&s)
	emuWantCode(t, err, codes.InvalidArgument)
}
