// Package wire carries encoded PartialResultSet messages from gRPC to the
// decoder without copying them, and encodes requests into pooled buffers
// (the queries' and the unary calls' codecs: StreamCodec, UnaryCodec).
//
// Ownership: a Frame's Data aliases a gRPC receive buffer that the Frame holds a
// reference to. Data, and every slice taken from it, is valid until Release is
// called; after that the memory may be handed to another RPC. Exactly one party
// owns a Frame at a time and that party calls Release exactly once.
//
// It also encodes the requests whose proto.Marshal costs most: an
// ExecuteSqlRequest (request.go, StreamCodec) and the writes of a
// CommitRequest (commit.go, through UnaryCodec, which every commit uses),
// byte for byte as proto.Marshal writes them.
package wire
