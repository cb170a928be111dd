// Package bulkload is the engine of driver.CopyFrom: it reads rows from a
// Source, converts each with internal/mutationpb (the conversion of every
// other mutation the driver sends), packs them into commits that stay
// under Spanner's limits, keeps several commits in flight, and accounts
// for every row it read: committed, refused, never sent, or of unknown
// outcome.
//
// Limits. A commit holds at most MaxMutations mutations as Spanner counts
// them (each row counts one per column written plus, for each secondary
// index of the table, one per column of the index; its caller reads these
// from INFORMATION_SCHEMA) and its CommitRequest at most MaxBytes bytes.
// An insert-or-update counts the index columns twice: an update of an
// indexed row deletes an index entry and writes another.
//
// Commits. Each commit is a single-use read-write transaction (one Commit
// request, no BeginTransaction), sent by the caller's Commit function
// (conn: the path of Apply with ApplyAtLeastOnce, which resends it when
// Spanner aborts it, and after UNAVAILABLE reports an outcome it cannot
// know as txn.CommitOutcomeUnknownError). A resent insert cannot apply a
// row twice (the second one fails with ALREADY_EXISTS), and a resent
// insert-or-update writes the same values again.
//
// It knows no connection, session or SQL: its caller gives it the table,
// the columns, the per-row cost of the table's indexes and the functions
// that commit.
package bulkload
