// Package doccheck holds the tests that keep the documentation honest: every
// relative link in README.md, CHANGELOG.md and docs/*.md resolves (file and
// heading), every test, benchmark, fuzz target or example a page cites by
// name exists in the repository, every Go file a page names exists, and the
// README's two commands are the ones a new user runs.
//
// It has no code of its own and imports nothing of the module: it reads the
// Markdown and the test sources as text.
package doccheck
