// Package e2e holds end-to-end tests: database/sql with the spannerfast
// driver talking real gRPC on loopback to spannertest (tables made through
// the admin API, rows loaded with the official client), to the project's
// scripted fake server (types and stream shapes spannertest cannot produce),
// and to the Spanner emulator when SPANNER_EMULATOR_HOST is set.
package e2e
