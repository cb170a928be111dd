// Package scan holds the typed variables spannerfast-bench's arms scan a
// row into, as an application would, and the cheap checksum of the values
// read: an arm's checksum must equal Expected, the checksum of the
// generated values, or the run reports the arm as failed.
package scan
