// pgStateShim: go-sql-spanner's helpers getPGTransactionState and
// setPGInErrorTxBehavior (conn_with_mockserver_test.go) look for methods
// typed with its connectionstate package. spannerfast's connection has the
// same methods and values with its own types (driver.TransactionState,
// driver.InErrorTxBehavior), so prepare.sh removes the two originals and
// these stand-ins try go-sql-spanner's method set first, then spannerfast's,
// converting the values (both are the same runes and the same iota order).
package gssconf

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/googleapis/go-sql-spanner/connectionstate"
	sfdriver "github.com/spannerfast/spannerfast/driver"
)

func getPGTransactionState(t *testing.T, conn *sql.Conn) connectionstate.TransactionState {
	t.Helper()
	var txState connectionstate.TransactionState
	err := conn.Raw(func(driverConn any) error {
		switch sc := driverConn.(type) {
		case interface {
			TransactionState() connectionstate.TransactionState
		}:
			txState = sc.TransactionState()
		case interface {
			TransactionState() sfdriver.TransactionState
		}:
			txState = connectionstate.TransactionState(sc.TransactionState())
		default:
			return fmt.Errorf("driverConn does not implement TransactionState()")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("failed to get TransactionState: %v", err)
	}
	return txState
}

func setPGInErrorTxBehavior(t *testing.T, conn *sql.Conn, b connectionstate.InErrorTxBehavior) {
	t.Helper()
	err := conn.Raw(func(driverConn any) error {
		switch sc := driverConn.(type) {
		case interface {
			SetInErrorTxBehavior(connectionstate.InErrorTxBehavior) error
		}:
			return sc.SetInErrorTxBehavior(b)
		case interface {
			SetInErrorTxBehavior(sfdriver.InErrorTxBehavior) error
		}:
			return sc.SetInErrorTxBehavior(sfdriver.InErrorTxBehavior(b))
		}
		return fmt.Errorf("driverConn does not implement SetInErrorTxBehavior")
	})
	if err != nil {
		t.Fatalf("failed to SetInErrorTxBehavior: %v", err)
	}
}
