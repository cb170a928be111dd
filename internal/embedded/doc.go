// Package embedded runs spannerfasttest (spannertest behind a correcting
// gRPC layer) on loopback for the quickstart, the examples and the
// end-to-end tests, and gives them a DSN for it. Its Target also creates
// tables through the database admin API and loads rows with the official
// client against the emulator or real Spanner; the official client is only
// a loader here: every read goes through spannerfast. Examples that need a
// PostgreSQL-dialect database, which spannertest does not serve, run on the
// emulator: SPANNER_EMULATOR_HOST's, or one started through emulatortest.
package embedded
