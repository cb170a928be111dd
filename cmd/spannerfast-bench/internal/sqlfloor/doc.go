// Package sqlfloor is the database/sql floor of spannerfast-bench: a
// database/sql driver whose Next only copies values decoded before
// timing, so that reading through it measures what database/sql and Scan
// cost by themselves.
package sqlfloor
