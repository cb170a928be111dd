// Package sqltext scans GoogleSQL text byte by byte for the test server's
// light rewrites (TIMESTAMP literals, THEN RETURN, INFORMATION_SCHEMA
// names): skipping quoted literals and spaces and recognising identifier
// bytes, so that each rewrite leaves string literals alone by one rule.
//
// It owns no grammar: it does not parse statements (spansql does), and it
// knows nothing of the server, its engine or its catalog.
package sqltext
