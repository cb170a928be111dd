// Package multistmt plans a string that holds several statements separated
// by semicolons: it splits the string (in the dialect of the parser it is
// given), classifies each statement (Class), and answers the questions the
// executor asks as it runs them: where an implicit transaction begins and
// whether it can be read-only, and which statements go as one batch. It
// also owns StatementError, the failure of one statement of such a string.
//
// It must not know connections, transactions, batches or Spanner's API:
// the caller (package conn) runs the statements and says what state its
// connection is in (a transaction open, a batch active); the rules here
// read only the classes of the statements. It knows nothing of conn's own
// statement type: it classifies from sqlparse.Statement.
//
// # The rules
//
// Several statements in one string run as go-sql-spanner runs them (its
// rules, PostgreSQL's in spirit):
//
//   - They run in order on the connection; BEGIN, COMMIT, SET ... among them
//     act on the statements after them.
//   - Outside a transaction, the statements run in an implicit transaction:
//     it begins at a query, DML or unknown statement that is not the last
//     of the string and is not followed directly by DDL (StartsImplicit);
//     it is read-only when only queries follow up to the next COMMIT,
//     ROLLBACK or DDL (and no BEGIN leaves a transaction open at the end),
//     else read-write (ImplicitReadOnly). It is committed before DDL (DDL
//     is not transactional), by a COMMIT or ROLLBACK in the string, or at
//     the end of the string when every statement succeeded; a failure
//     rolls it back. BEGIN in it makes it explicit: it then stays open
//     after the string, like a transaction begun by BEGIN. An open
//     transaction (BeginTx, BEGIN) is used as it is and never ended by the
//     string itself.
//   - Consecutive DML statements without THEN RETURN go as one
//     ExecuteBatchDml (a DML batch: START BATCH DML ... RUN BATCH), and
//     consecutive DDL statements as one DDL batch (one UpdateDatabaseDdl,
//     or a CreateDatabase with extra statements), unless a batch is already
//     active (then each statement goes into it); DDL only outside a
//     transaction (Plan.Batch).
//   - Every statement receives the whole argument list, go-sql-spanner's
//     rule: named arguments bind by name in whichever statements use them,
//     and `?` numbers from 1 again in each statement.
//   - The first failure stops the rest; its *StatementError says which
//     statement failed and keeps the gRPC code (and unwraps to a batch's
//     error when a batch failed).
//
// Unlike go-sql-spanner, a client-side statement other than BEGIN, COMMIT
// and ROLLBACK (SET, SHOW, START BATCH...) does not begin the implicit
// transaction: it begins at the next query or DML statement instead, so
// that e.g. `SET autocommit_dml_mode = 'PARTITIONED_NON_ATOMIC'; UPDATE
// ...` runs the UPDATE as it would run alone.
package multistmt
