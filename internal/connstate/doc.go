// Package connstate keeps the state of one database/sql connection's
// properties: the values SET, SET LOCAL, RESET and ResetSession change and
// SHOW VARIABLE reads, the extension variables (SET my_ext.x = ...), the
// results SHOW VARIABLE reports (commit_timestamp, commit_response,
// read_timestamp) and the one-shot settings of the next statement or
// transaction.
//
// A Store starts at the DSN's values. Its scopes are those of the property
// declarations in package dsn, the single source of every property's name,
// type, default and scope:
//
//   - session: Set changes a value until it is set again, reset or the
//     connection goes back to the pool (ResetAll);
//   - transaction: with connection_state_type=TRANSACTIONAL (the default
//     on a PostgreSQL-dialect database: dsn.Config.StateType), what Set,
//     SetLocal and Reset change inside a transaction is undone when it ends
//     without a commit (EndTransaction(false));
//   - local: SetLocal changes a value until the open transaction ends,
//     whatever its outcome;
//   - one-shot: statement_tag and transaction_tag are spent by the
//     statement or transaction that uses them, Overlay lays a statement's
//     or transaction's own options over the values while it runs, and the
//     next transaction's options (SetNextTxn, SetNextBatchBound) are taken
//     once.
//
// It also keeps the connection's transaction state as PostgreSQL reports
// it (idle, in a transaction, in a failed transaction: txstate.go) and the
// rule for statements in a failed transaction (InErrorTxBehavior).
//
// The package knows nothing of transactions beyond being told when one
// begins and ends and when a statement failed, nothing of statements (it gets names and values already
// parsed) and nothing of gRPC beyond the status codes of its errors.
// What a property does to an open transaction is the connection's concern
// (package conn).
package connstate
