package driver

import "github.com/spannerfast/spannerfast/internal/stmtopts"

// QueryOptions change how one statement runs. Pass one among the
// statement's arguments; the driver removes it from the parameters.
type QueryOptions = stmtopts.QueryOptions

// RawDecode returns a statement argument that turns raw decode on or off for
// that one query, whatever the connection's raw_decode says:
//
//	rows, err := db.QueryContext(ctx, "SELECT Name FROM Singers", driver.RawDecode(true))
//
// In raw mode STRING and BYTES values alias the receive buffer and every
// value is valid only until the next call to Next or Close (see
// docs/raw-decode.md for which Scan targets copy).
func RawDecode(on bool) QueryOptions { return QueryOptions{RawDecode: &on} }
