//go:build spanner_vtproto

package main

// borrowBuilt reports that cloud.google.com/go/spanner was built with the
// spanner_vtproto tag, so QueryOptions.ExperimentalBorrowRows takes effect.
const borrowBuilt = true
