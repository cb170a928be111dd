// Package stmtopts holds the options a caller passes with one statement or
// one transaction, as values: what they are, how they are checked, merged
// and converted.
//
// It owns QueryOptions (spannerfast's per-statement argument) and
// go-sql-spanner's ExecOptions with its names (DecodeOption,
// AutocommitDMLMode, PartitionedQueryOptions, ExecutePartition,
// PropertyValue), converted into a QueryOptions with every option that
// cannot be honoured refused by name; the conversion of the official
// client's TransactionOptions and TimestampBound (TxnOptionsOf,
// StalenessOf, TimestampBoundOf) and of database/sql's isolation levels
// (IsolationOf), and the reading of the client's ApplyOption values
// (ReadApplyOptions, for the connection's Apply); Pending, which carries the
// options that CheckNamedValue takes out of a statement's arguments to that
// statement and no other; and the two ways a statement's options act: SetOn
// lays its settings over the connection's properties (for
// connstate.Store.Overlay) and ApplyTo adds its request fields to an
// ExecuteSqlRequest. What a statement's request and rows take from the
// connection's properties is here too (RequestOptions, OptimizerOptions,
// QueryOptions.RowsOptions): pure functions of a dsn.Config.
//
// It must not know the connection, transactions, sessions, streams or the
// transport: the connection (package conn) decides when a statement's
// options start and end and what a transaction's options do, and calls
// this package for the values. It checks property values with
// package connstate's rules (the same as SET), and names partitions with
// package partition's types, which it does not run.
package stmtopts
