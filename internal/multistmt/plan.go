package multistmt

import (
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// Class is what a statement of a string of several is, for the rules of
// the package.
type Class uint8

const (
	Query        Class = iota // SELECT, WITH, GRAPH, FROM
	DML                       // INSERT, UPDATE, DELETE without THEN RETURN
	DMLReturning              // DML with THEN RETURN (RETURNING)
	DDL
	Begin  // BEGIN
	End    // COMMIT, ROLLBACK
	Client // other client-side statements
	Other  // a keyword the driver does not know (sent as a query), or unparsable
)

var classNames = [...]string{"Query", "DML", "DMLReturning", "DDL", "Begin", "End", "Client", "Other"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(?)"
}

// Classify returns the class of a statement parsed as st, or of one that
// failed to parse with err.
func Classify(st sqlparse.Statement, err error) Class {
	switch {
	case err != nil:
		return Other
	case st.Kind == sqlparse.DML:
		if st.ThenReturn {
			return DMLReturning
		}
		return DML
	case st.Kind == sqlparse.DDL:
		return DDL
	case st.Kind == sqlparse.Client && st.Client != nil:
		switch st.Client.Command {
		case sqlparse.CmdBegin:
			return Begin
		case sqlparse.CmdCommit, sqlparse.CmdRollback:
			return End
		}
		return Client
	}
	switch st.Keyword {
	case "SELECT", "WITH", "GRAPH", "FROM":
		return Query
	}
	return Other
}

// Parser parses one statement in a dialect: a *sqlparse.Cache.
type Parser interface {
	Dialect() sqlparse.Dialect
	Parse(sql string) (sqlparse.Statement, error)
}

var _ Parser = (*sqlparse.Cache)(nil)

// Plan is the statements of one string, each parsed once, and their
// classes.
type Plan struct {
	Stmts   []string
	Classes []Class
	Parsed  []sqlparse.Statement
	Errs    []error // why statement i does not parse; reported when it runs
}

// New splits query in p's dialect and parses and classifies each
// statement. Only a failure to split is an error: a statement that does
// not parse keeps its error in Errs, for when it runs.
func New(p Parser, query string) (*Plan, error) {
	stmts, err := sqlparse.SplitDialect(p.Dialect(), query)
	if err != nil {
		return nil, err
	}
	n := len(stmts)
	pl := &Plan{Stmts: stmts, Classes: make([]Class, n), Parsed: make([]sqlparse.Statement, n), Errs: make([]error, n)}
	for i, q := range stmts {
		pl.Parsed[i], pl.Errs[i] = p.Parse(q)
		pl.Classes[i] = Classify(pl.Parsed[i], pl.Errs[i])
	}
	return pl, nil
}

// StartsImplicit reports whether statement i begins an implicit
// transaction, when the connection has none and no batch is active.
func (p *Plan) StartsImplicit(i int) bool {
	if i == len(p.Stmts)-1 {
		return false // a transaction of one statement is what it gets anyway
	}
	switch p.Classes[i] {
	case Query, DML, DMLReturning, Other:
		return p.Classes[i+1] != DDL // DDL would commit it at once
	}
	return false
}

// ImplicitReadOnly reports whether the implicit transaction that statement
// i begins can be read-only: only queries until it ends, and no BEGIN
// leaving a transaction open at the end of the string.
func (p *Plan) ImplicitReadOnly(i int) bool {
	if p.Classes[i] != Query {
		return false
	}
	explicitAfter := false
	for _, cl := range p.Classes[i+1:] {
		switch cl {
		case End, DDL:
			return true
		case Begin:
			explicitAfter = true
		case DML, DMLReturning, Other:
			return false
		}
	}
	return !explicitAfter
}

// RunLength is the number of statements from i of the class of statement
// i, when at least two in a row could go as one batch (DML or DDL); 1
// otherwise.
func (p *Plan) RunLength(i int) int {
	cl := p.Classes[i]
	if cl != DDL && cl != DML {
		return 1
	}
	j := i + 1
	for j < len(p.Stmts) && p.Classes[j] == cl {
		j++
	}
	return j - i
}

// Batch is the number of statements from i that go as one batch given the
// connection's state (a transaction open, a batch already active): at
// least 2, or 0 when statement i runs alone. An active batch takes each
// statement as it comes; DDL is not transactional, so a transaction's DDL
// is never batched here.
func (p *Plan) Batch(i int, inTxn, inBatch bool) int {
	n := p.RunLength(i)
	if n < 2 || inBatch || (p.Classes[i] == DDL && inTxn) {
		return 0
	}
	return n
}
