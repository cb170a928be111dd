package conn

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/stmtopts"
)

// The options a caller passes with a statement or a transaction, and how
// they are checked, merged and converted, are package internal/stmtopts's.
// These names keep conn's API (driver re-exports them from stmtopts); what
// needs the connection (a statement's scope, the next transaction's
// options) is here.
type (
	// QueryOptions change how one statement runs (see stmtopts.QueryOptions).
	QueryOptions = stmtopts.QueryOptions
	// TxnOptions are transaction settings given in code.
	TxnOptions = stmtopts.TxnOptions
	// ExecOptions is go-sql-spanner's per-statement argument.
	ExecOptions = stmtopts.ExecOptions
	// DecodeOption is how a query's rows are decoded.
	DecodeOption = stmtopts.DecodeOption
	// AutocommitDMLMode is how DML outside a transaction runs, in
	// go-sql-spanner's numbering.
	AutocommitDMLMode = stmtopts.AutocommitDMLMode
	// PartitionedQueryOptions are go-sql-spanner's options of partitioned
	// queries.
	PartitionedQueryOptions = stmtopts.PartitionedQueryOptions
	// ExecutePartition runs partition Index of PartitionedQuery.
	ExecutePartition = stmtopts.ExecutePartition
	// Identifier is the name of a property, in parts.
	Identifier = stmtopts.Identifier
	// PropertyValue is a property and its value in SET's text form.
	PropertyValue = stmtopts.PropertyValue
)

// DecodeOption values.
const (
	DecodeOptionNormal = stmtopts.DecodeOptionNormal
	DecodeOptionProto  = stmtopts.DecodeOptionProto
)

// AutocommitDMLMode values.
const (
	Unspecified          = stmtopts.Unspecified
	Transactional        = stmtopts.Transactional
	PartitionedNonAtomic = stmtopts.PartitionedNonAtomic
)

// statementScope undoes withStatementOptions. It is a value rather than a
// closure so that a statement without options allocates nothing.
type statementScope struct {
	c       *Conn
	restore func() // undoes the overlay, if any
}

// end ends the statement's options; call it when the statement returns.
func (s statementScope) end() {
	if s.c == nil {
		return
	}
	s.c.stmtReq = nil
	if s.restore != nil {
		s.restore()
	}
}

// withStatementOptions makes q the options of the statement about to run:
// its settings stand in for the connection's and its request fields are
// added to the statement's requests (ApplyTo). The returned scope ends
// that; call its end when the statement returns.
func (c *Conn) withStatementOptions(q QueryOptions) (statementScope, error) {
	if err := q.Err(); err != nil {
		return statementScope{}, err
	}
	s := statementScope{c: c}
	if q.Overlays() {
		s.restore = c.state.Overlay(q.SetOn)
	}
	if q.ChangesRequest() {
		kept := q // only this copy escapes, and only when it is kept
		c.stmtReq = &kept
	}
	return s, nil
}

// SetNextTxnOptions sets options for the next transaction begun on the
// connection (go-sql-spanner's BeginReadWriteTransaction and
// BeginReadOnlyTransaction set them through sql.Conn.Raw just before
// BeginTx). BeginTx takes them whether or not the begin succeeds, and
// ResetSession forgets them.
func (c *Conn) SetNextTxnOptions(o TxnOptions) error {
	if o.ReadOnlyBound != nil && o.ReadOnlyBound.SingleUseOnly() {
		return status.Errorf(codes.InvalidArgument,
			"spannerfast: timestamp bound %s is for single queries only; a read-only transaction needs STRONG, EXACT_STALENESS or READ_TIMESTAMP", *o.ReadOnlyBound)
	}
	c.state.SetNextTxn(o)
	return nil
}
