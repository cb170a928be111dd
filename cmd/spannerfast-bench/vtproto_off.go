//go:build !spanner_vtproto

package main

// borrowBuilt reports that cloud.google.com/go/spanner was built without the
// spanner_vtproto tag: QueryOptions.ExperimentalBorrowRows is ignored, so
// the client-borrow arm would only repeat the client arm.
const borrowBuilt = false
