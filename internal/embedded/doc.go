// Package embedded runs spannertest, the in-process Spanner server written by
// the Spanner client's authors, on loopback for the quickstart, the examples
// and the end-to-end tests, and gives them a DSN for it. It also creates
// tables through the database admin API and loads rows with the official
// client, which is only a loader here: every read goes through spannerfast.
package embedded
