// Package bare makes Spanner RPCs with grpc-go alone: requests sent as
// ready bytes, responses counted, not decoded. It is the bare gRPC arm
// (the transport floor) of spannerfast-bench: what sending and receiving
// the messages costs, with nothing of a client library. Capture learns the
// calls to make from a driver: what it sends for one operation, recorded
// by a fake server in the same process.
package bare
