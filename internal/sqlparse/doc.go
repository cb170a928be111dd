// Package sqlparse reads just enough of a GoogleSQL statement for the
// driver: what kind of statement it is (its first keyword after comments and
// a statement hint `@{...}`), its parameters, and the text to send with
// positional `?` parameters rewritten to @p1, @p2, ...
//
// It parses each statement once, into everything an executor needs, so no
// executor reads the text again: a client-side statement's command and
// arguments (ClientStatement: property name and value, transaction options,
// batch kind, the query of a partition statement, itself parsed), whether
// DML has THEN RETURN, and which database CREATE or DROP DATABASE is about.
// A client-side statement that scans but is malformed keeps its error in
// Statement.Invalid, with the statement, for its executor to report when it
// runs it: Parse returns only the lexical errors below. It must not know
// connections, properties' values or Spanner's API: it reads text.
//
// # Dialects
//
// Parse reads GoogleSQL; ParseDialect, SplitDialect and NewDialectCache read
// a statement in either dialect (Dialect). What differs between them is in
// dialect.go (the keyword tables) and lex.go (next and nextPG); a
// PostgreSQL client-side statement (SET ... TO, SET SESSION, START
// TRANSACTION, BEGIN WORK, END, ABORT...) is parsed into the same
// ClientStatement as its GoogleSQL counterpart, so executors do not know
// the dialect. The PostgreSQL lexical rules are documented on nextPG and
// its parameters on scanPG; the rules below are GoogleSQL's.
//
// # Lexical rules
//
// The scanner skips, without looking inside:
//
//   - string literals in one or three quotes of either kind ('...', "...",
//     and the same tripled), with an optional prefix r (raw), b (bytes), rb or br, in any case.
//     A backslash always takes the next byte with it (also in raw literals,
//     where GoogleSQL keeps both bytes but the quote still does not end the
//     literal). A line feed ends a one-quote literal too early: it is an
//     unclosed literal, as in GoogleSQL.
//   - quoted identifiers: `...` (the same rules as one-quote literals).
//   - comments: -- and # to the end of the line, /* ... */ (not nested).
//
// An unclosed literal, quoted identifier or block comment is a *SyntaxError
// with code InvalidArgument that says which one and where it starts. So is a
// statement that mixes `?` and @name parameters.
//
// Parameters are @name (a letter or _ after the @) and `?`. A `?` glued to
// the next word gets a space after its new name, so `?AND` cannot become a
// longer parameter name. Names are distinct, compared ignoring case (Spanner
// matches parameter names case-insensitively), in the order they first
// appear, with their first spelling.
//
// # Quoted identifiers
//
// QuoteIdent writes a name as one quoted identifier of a dialect, and
// UnquoteIdent and CutQuotedIdent read one back (ident.go), by the same
// lexical rules as the scanner: every name the driver and the GORM
// dialectors write into SQL goes through QuoteIdent (FuzzQuoteIdent).
//
// # Why hand-written
//
// The alternative was github.com/cloudspannerecosystem/memefish (v0.8.1), a
// complete GoogleSQL lexer and parser. The driver needs none of its grammar:
// only the token boundaries of literals, identifiers and comments, which are
// a few dozen lines here, and it would have to be driven token by token to
// rewrite `?` (which is not GoogleSQL and which memefish reports as an
// error or a different token). It would add a module with its own
// dependencies to every user of the driver, allocates a token per word, and
// would not decide what happens on the hot path anyway: statements are
// parsed once and then found in a Cache (a map lookup and a list move, no
// allocation; see BenchmarkCacheHit). The table and fuzz tests pin the
// lexical rules above instead.
package sqlparse
