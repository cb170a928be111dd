// Package archtest holds no code: its test keeps the module's shape.
//
// The test reads every package of the module (without the go tool) and
// checks three rules of issue 19's architecture:
//
//   - Layers. Each package has a rank (layers in archtest_test.go). A
//     package imports only packages of the module with a LOWER rank, so no
//     edge runs back up and no concern reaches sideways into another's
//     internals. A new package fails the test until it is given a rank:
//     placing it is a decision, not an accident.
//   - Size. No package has more than 4,000 lines outside its tests.
//   - Parse once. Statement text is tokenized in internal/sqlparse only:
//     no other package calls its word splitter.
//
// Test files are exempt from the layer rule: end-to-end tests import
// whatever they exercise.
package archtest
