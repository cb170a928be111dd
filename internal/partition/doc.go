// Package partition holds partitioned reads' data and the reader of many
// partitions at once.
//
// It owns the Partition (one part of a partitioned query: the request that
// reads it, its versioned binary encoding and its text id), the
// PartitionedQuery a PartitionQuery result holds, and Rows, which reads
// several partitions through worker goroutines into one driver.Rows, each
// partition in a span of its own.
//
// It must not know connections, sessions, transactions or statement
// options: whoever partitions a query makes the partitions (New) and
// passes an Opener that reads one; PartitionedQuery.Execute asks a
// connection for a partition through database/sql with a Read argument,
// which the connection understands. Package conn runs PartitionQuery and
// the partition statements; package driver re-exports the public types.
package partition
