// Package e2e holds end-to-end tests: database/sql with the spannerfast
// driver talking real gRPC on loopback to spannertest (tables made through
// the admin API, rows loaded with the official client), to the project's
// scripted fake server (types and stream shapes spannertest cannot produce),
// and to Google's Cloud Spanner emulator (emulator_*_test.go, each test on a
// fresh database from internal/emulatortest, which finds or starts the
// emulator; without one they skip, under CI they fail).
package e2e
