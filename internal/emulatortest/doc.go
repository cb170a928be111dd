// Package emulatortest gives tests a fresh database on Google's Cloud
// Spanner emulator, the real GoogleSQL and PostgreSQL engine behind
// Spanner's API.
//
// It owns finding the emulator, starting it and stopping it:
//
//   - SPANNER_EMULATOR_HOST, when set, names a running emulator and is used
//     as is (the package never starts or stops that one);
//   - otherwise emulator_main is looked up on PATH, under the gcloud SDK
//     root that `gcloud info` reports (bin/cloud_spanner_emulator/) and at
//     the path of the Debian package google-cloud-cli-spanner-emulator,
//     and started once per test binary on a free loopback port. On Linux it
//     dies with the test binary (parent-death signal), so a crashed test
//     leaves no process behind. Its output goes to a log file in a
//     temporary directory, shown when it fails to start.
//
// Where no emulator can be found, Endpoint and NewDatabase skip the test
// with a message naming the package to install; when the CI environment
// variable is set that is a failure instead, so CI never passes by
// skipping.
//
// NewDatabase creates one instance per test binary and a uniquely named
// database per call (GoogleSQL or PostgreSQL dialect, optionally with DDL),
// dropped when the test ends. Test binaries that use it call Main (or Stop)
// from TestMain so that the emulator they started is stopped.
//
// Start is the same finding and starting for a program that needs an
// emulator of its own (the PostgreSQL example, through internal/embedded):
// it returns the Process to Stop, or an error that is ErrNotInstalled.
package emulatortest
