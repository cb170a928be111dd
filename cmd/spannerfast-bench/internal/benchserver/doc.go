// Package benchserver is the fake Spanner server of spannerfast-bench.
//
// It implements just enough of google.spanner.v1.Spanner for the benchmark
// clients: sessions (CreateSession, BatchCreateSessions, GetSession,
// DeleteSession), ExecuteStreamingSql, which picks a workload by the exact
// SQL text (or, when no workload has it, by the text with the request's
// parameters written in, bind.go: ORMs send LIMIT and IN lists as
// parameters) and streams its PartialResultSets, ExecuteSql for small
// unchunked results (a driver's SELECT 1), DML through either call, and
// stateless transactions (txn.go): BeginTransaction, inline begins (the first result
// message carries the transaction), DML and ExecuteBatchDml (every
// statement changes one row), precommit tokens on multiplexed sessions,
// Commit and Rollback, and partitioned queries (partitions.go):
// PartitionQuery of a partitioned workload's SQL answers its partition
// tokens, and ExecuteStreamingSql with a token streams that partition's
// rows. Every other method returns Unimplemented.
//
// The results are encoded once, when the server is created. A server-side
// gRPC codec (grpc.ForceServerCodecV2) hands the stored bytes of each
// message to gRPC as they are, so serving a query costs the server no
// marshalling at all; requests and the small unary responses go through the
// standard proto codec, except the fixed unary answers of txn.go, which are
// encoded once too. The content subtype stays "proto", so any gRPC client
// can talk to it.
//
// Ownership: the stored messages are shared by all streams (and, for a
// cyclic workload, by several messages of one stream). gRPC only reads them;
// nothing may modify them after New returns.
//
// Resume tokens are the 8-byte big-endian index of the message plus one; a
// request that carries one resumes after that message.
package benchserver
