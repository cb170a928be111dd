package spannerfasttest

import (
	"context"
	"runtime/debug"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A panic while serving a request must not end the process that embeds the
// server (the user's test binary): the interceptors turn it into the
// request's error, Internal, and the server goes on serving. The locks a
// handler holds are released by their defers as the panic unwinds; a DML
// statement that panics is failed like one that returns an error
// (runDML), so its transaction's undo log puts its rows back at rollback.
// Type errors Spanner reports as InvalidArgument are found before the
// engine runs a statement (typecheck.go): a panic in the engine's own
// goroutine cannot be recovered here.

// panicError is the status of a recovered panic in method.
func panicError(method string, r any) error {
	return status.Errorf(codes.Internal, "spannerfasttest: internal error serving %s (the server keeps running; please report it): panic: %v\n%s", method, r, debug.Stack())
}

func recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, panicError(info.FullMethod, r)
		}
	}()
	return handler(ctx, req)
}

func recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(info.FullMethod, r)
		}
	}()
	return handler(srv, ss)
}

// recovered runs fn, returning a panic in it as an error.
func recovered(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(what, r)
		}
	}()
	return fn()
}

var (
	_ grpc.UnaryServerInterceptor  = recoverUnary
	_ grpc.StreamServerInterceptor = recoverStream
)
