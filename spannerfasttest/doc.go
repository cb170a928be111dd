// Package spannerfasttest runs an in-process Spanner server for tests, in
// the manner of net/http/httptest:
//
//	srv, err := spannerfasttest.Start()
//	...
//	defer srv.Close()
//	err = srv.CreateTables(ctx, "CREATE TABLE T (a INT64 NOT NULL, b STRING(MAX)) PRIMARY KEY (a)")
//	db, err := sql.Open("spannerfast", srv.DSN())
//
// The engine is spannertest (cloud.google.com/go/spanner/spannertest). A
// gRPC layer in front of it implements google.spanner.v1.Spanner, the
// database admin calls spannertest knows (UpdateDatabaseDdl, GetDatabase,
// GetDatabaseDdl) and GetOperation, and forwards to the engine over a
// loopback connection what the engine does right, translates what it does
// wrong, and refuses the rest with a clear gRPC status. The server reports
// the database projects/test-project/instances/test-instance/databases/test-db;
// the engine serves one database whatever its name.
//
// # Runs correctly
//
// Sessions (regular and multiplexed; names are full resource paths).
// Queries through ExecuteSql and ExecuteStreamingSql, and reads (Read,
// StreamingRead), in single-use read-only transactions, read-only
// multi-use transactions and read-write transactions, begun explicitly
// (BeginTransaction) or inline (TransactionSelector.Begin: the first
// response's metadata carries the transaction and, for read-only, the read
// timestamp when asked). Read-write transactions on multiplexed sessions
// get a precommit token with every result (and from BeginTransaction when a
// mutation_key is set); Commit must carry the one with the highest seq_num,
// or fails with FailedPrecondition as on Spanner. ExecuteSql and
// ExecuteBatchDml honour seqno: a repeated seqno in a transaction replays
// the first answer instead of running the statement again. Commit by id or
// single-use, with Insert, Update, InsertOrUpdate, Replace and Delete
// mutations, applied atomically. Rollback. Partitioned DML
// (BeginTransaction with partitioned_dml, then UPDATE or DELETE through
// ExecuteSql or ExecuteStreamingSql; the count is reported as a lower
// bound). ExecuteBatchDml: the statements run in order, stopping at the
// first failure; the response holds the result sets of those that ran and
// the failure's status. PartitionQuery and PartitionRead return a single
// partition covering everything. BatchWrite applies each mutation group
// atomically and reports a status per group.
//
// # Transactions
//
// DML in a read-write transaction takes effect at commit, as on Spanner:
// the transaction's later statements and queries see its writes; every
// other client (single-use reads, read-only transactions) sees committed
// data only; Rollback, a deleted session or a failed Commit undoes it.
// Mutations buffered with DML in one transaction are applied at Commit,
// after the DML (which does not see them); when one fails, the DML is
// undone too. A DML statement that fails while it runs (a duplicate key, a
// NOT NULL column left NULL: AlreadyExists, FailedPrecondition) changes
// nothing, and, as on the emulator, every later request of its transaction
// (commit included) fails the same way; one refused before it runs (an
// unknown column, a wrong type: InvalidArgument) leaves the transaction
// usable. The engine holds committed data plus the uncommitted DML of
// at most one read-write transaction, the writer (with an undo log of the
// rows it touched, which are hidden from other readers while they read).
// As on the emulator, one read-write transaction at a time: a transaction
// becomes the writer at its first query, read, DML statement or commit, and
// every other write (read-write transactions, single-use commits,
// BatchWrite, partitioned DML) waits for it, for up to two seconds, and is
// then aborted (Aborted; the emulator aborts one of the two at once). A
// writer idle for ten seconds is aborted by the next write that waits for
// it, so an abandoned transaction blocks no one for long.
//
// # INFORMATION_SCHEMA
//
// Queries naming INFORMATION_SCHEMA.TABLES, COLUMNS, INDEXES,
// INDEX_COLUMNS, TABLE_CONSTRAINTS or CONSTRAINT_TABLE_USAGE (the table of
// each primary key and the table each foreign key references) are
// answered here, from a catalog of
// the DDL statements the engine applied (UpdateDatabaseDdl runs them one at
// a time, so a batch failing part way keeps the statements before the
// failure, as on Spanner). Rows carry Spanner's columns, in its order and
// spelling: TABLE_CATALOG and TABLE_SCHEMA empty; columns in declared order
// with ORDINAL_POSITION from 1, SPANNER_TYPE such as STRING(MAX), INT64 or
// ARRAY<STRING(MAX)>, IS_NULLABLE YES/NO, COLUMN_DEFAULT and
// GENERATION_EXPRESSION as spansql prints them; PARENT_TABLE_NAME and
// ON_DELETE_ACTION for interleaved tables; an index row of type INDEX per
// secondary index (IS_UNIQUE, IS_NULL_FILTERED, INDEX_STATE READ_WRITE,
// PARENT_TABLE_NAME of INTERLEAVE IN, else empty) and one named PRIMARY_KEY per
// table; INDEX_COLUMNS with key columns (ordinal, ASC/DESC) and STORING
// columns (NULL ordinal and ordering); constraints PK_<table>,
// CK_IS_NOT_NULL_<table>_<column>, CHECK and FOREIGN KEY. ALTER TABLE
// (ADD/DROP/ALTER COLUMN, ADD/DROP CONSTRAINT), DROP INDEX, DROP TABLE and
// views (TABLES rows of type VIEW) are followed.
//
// The evaluator covers the shapes ORM migrators send (GORM with
// go-gorm-spanner): SELECT lists of columns (alias.column), literals,
// parameters, comparisons, LIKE, BETWEEN, IN lists, AND/OR/NOT (three-valued),
// IS [NOT] NULL/TRUE/FALSE, IF, COALESCE, IFNULL, REGEXP_REPLACE,
// REGEXP_EXTRACT, REPLACE, UPPER, LOWER, CONCAT, STARTS_WITH, [SAFE_]CAST to
// INT64 or STRING, COUNT(*) and COUNT(expr) without GROUP BY, and correlated
// scalar subqueries; FROM one table or INNER, LEFT and CROSS joins with ON or
// USING; table aliases with or without AS; a trailing comma before FROM;
// WHERE, ORDER BY (columns or select-list aliases), LIMIT and OFFSET. Any
// other shape, other INFORMATION_SCHEMA tables (SCHEMATA, KEY_COLUMN_USAGE,
// REFERENTIAL_CONSTRAINTS, ...) and queries mixing INFORMATION_SCHEMA with
// user tables get Unimplemented naming what is missing. As on Spanner, these
// queries are refused in read-write transactions (InvalidArgument).
// Differences from Spanner: rows describing INFORMATION_SCHEMA and
// SPANNER_SYS themselves are not listed; the backing indexes Spanner creates
// for foreign keys (and their UNIQUE constraints) are not listed; unnamed
// CHECK and FOREIGN KEY constraints get names of the form CK_<table>_<n> and
// FK_<table>_<n>, not Spanner's generated ones; rows come in schema order
// when the query has no ORDER BY (Spanner promises no order).
//
// # Translates
//
// Every DML statement runs as mutations committed atomically on the engine,
// with the exact row count:
//   - INSERT [OR UPDATE | OR IGNORE] [INTO] T (cols) VALUES (...), (...) or
//     ... SELECT: every row is stored, each value in the column at its
//     position in the column list, whether it is a literal, a positional
//     (@p1) or named parameter or an expression. INSERT becomes an Insert
//     mutation and fails with AlreadyExists (storing nothing) when a key
//     exists or repeats; INSERT OR UPDATE becomes InsertOrUpdate (a key
//     twice is InvalidArgument) writes the whole row, as the emulator does: a
//     column the statement does not name becomes NULL in an existing row;
//     INSERT OR IGNORE inserts only the rows whose key is new, and counts
//     only those.
//   - UPDATE T SET ... WHERE ...: the engine selects the keys and the new
//     values of the matching rows, which become one Update mutation.
//   - DELETE FROM T WHERE ...: the engine selects the matching keys, which
//     become one Delete mutation.
//   - THEN RETURN select-list: the engine evaluates the list on the rows
//     the statement wrote (for DELETE, on the rows before it deleted them),
//     returned in the statement's order with its row count; a list that
//     fails leaves nothing written.
//
// UNIQUE indexes are enforced: a write (DML, mutations, BatchWrite) that
// leaves two rows with the same key of a UNIQUE index fails with
// AlreadyExists and changes nothing; NULL counts as a value, except in a
// NULL_FILTERED index, as on Spanner. So are CHECK constraints the
// engine can evaluate: a row whose expression is FALSE fails the write with
// OutOfRange.
//
// Values are checked against the column types as Spanner does: INT64 goes
// into FLOAT64 columns, STRING into DATE and TIMESTAMP columns, untyped
// parameters into any column; any other mismatch is InvalidArgument naming
// the column. PENDING_COMMIT_TIMESTAMP() writes the commit timestamp.
// Mutations that would leave a NOT NULL column NULL in a new row fail with
// FailedPrecondition. Parameters without a type get one inferred from their
// value (the engine crashes on a missing type).
//
// # Refuses
//
//   - THEN RETURN WITH ACTION (Unimplemented); statements spansql cannot
//     parse, and INSERT without a column list (InvalidArgument).
//   - Reserved keywords (AS, AT, ALL, SELECT, ...) used as identifiers
//     without backticks, in DDL, DML and queries (InvalidArgument), as on
//     Spanner; spansql alone accepts them.
//   - An unknown table or column in a query or DML statement is
//     InvalidArgument, as on Spanner (NotFound in mutations and reads);
//     DDL creating a name in use is FailedPrecondition.
//   - DML outside a read-write or partitioned DML transaction, or in a
//     read-only one; INSERT in partitioned DML; single-use read-write
//     transactions for queries; inline begin of partitioned DML.
//   - Writes that omit a column with a DEFAULT expression, and SET col =
//     DEFAULT on such a column (Unimplemented: the engine does not apply
//     defaults).
//   - Reads through a secondary index (Unimplemented), ListSessions and
//     every admin or operations call other than those above
//     (Unimplemented), requests without a key set, key ranges without both
//     ends, mutations without an operation, and ARRAY types without an
//     element type (InvalidArgument). These would crash the engine.
//
// # Limits
//
//   - A read-only transaction has no snapshot of its own: each of its
//     reads sees the data committed when it runs; stale reads read the
//     latest data. Transactions abort only as described under Transactions
//     (no lock conflicts finer than one writer per server).
//   - PENDING_COMMIT_TIMESTAMP() in transactional DML writes the time the
//     statement ran, not the commit's timestamp. Interleaved tables are
//     not enforced (ON DELETE CASCADE is not applied, so a rollback cannot
//     miss cascaded rows).
//   - Each statement and each commit is atomic: when the engine fails part
//     way, the server puts back the rows it had read before the write.
//   - The differential test e2e/differential_embedded_test.go runs the
//     same scenarios here and on the emulator and lists each answer that
//     differs; every one is a limit named in this section.
//   - Queries run on spannertest's evaluator, with its gaps: results only of
//     the types BOOL, INT64, FLOAT64, STRING, BYTES, DATE, TIMESTAMP and
//     UUID (and arrays of them); not every function (no CONCAT or
//     ARRAY_LENGTH, for example, also in DML); no FLOAT64 literal in a
//     query without FROM, no DATE or TIMESTAMP literal in a query (in DML
//     they work, RFC 3339 timestamps included);
//     untyped parameters in queries are STRING. Streams send one row per
//     message, without resume tokens or chunked values.
//   - Identifiers are matched case-insensitively in DML; spansql rules
//     (such as no table aliases in DML) apply.
//   - Foreign keys are recorded but not enforced, nor are CHECK
//     constraints spannertest's evaluator cannot evaluate;
//     no sequences, IDENTITY columns or secondary index reads.
//   - Commit statistics count written cells and deleted keys and ranges,
//     ignoring indexes.
//   - A panic inside spannertest's evaluator on some query it mishandles
//     would still end the process; the requests known to crash it are
//     answered here instead.
package spannerfasttest
