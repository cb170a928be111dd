package connstate

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// Store is the state of one connection's properties. The zero value holds
// a zero dsn.Config and no DSN to reset to; connections use New. Like the
// connection it belongs to, a Store is used by one goroutine at a time.
type Store struct {
	dsn *dsn.Config       // the DSN's values: RESET goes back to them; never modified
	cur dsn.Config        // the values in effect
	ext map[string]string // extension variables, by lower-case name

	inTxn     bool              // a transaction is open (BeginTransaction)
	txFailed  bool              // a statement of the open transaction failed (txstate.go)
	inErrorTx InErrorTxBehavior // what follows a failed statement in a transaction
	snap      *snapshot         // TRANSACTIONAL state: the values before the transaction's first change
	local     *locals           // what SET LOCAL changed in the open transaction
	last      results           // for SHOW VARIABLE commit_timestamp, ...
	next      nextShots         // the next transaction's one-shot options
}

// New returns the state of a new connection: every property at the DSN's
// value in d, which the Store keeps and never modifies.
func New(d *dsn.Config) Store {
	return Store{dsn: d, cur: *d, last: results{untouched: true}, inErrorTx: InErrorTxBehaviorAllowCommands}
}

// Values returns the values in effect. Read them through the pointer;
// change them only through the Store's methods, so that the scopes hold.
func (s *Store) Values() *dsn.Config { return &s.cur }

// DSN returns the DSN's values, which RESET goes back to.
func (s *Store) DSN() *dsn.Config { return s.dsn }

// ResetAll puts every property back to the DSN's value and forgets
// extension variables, local values, results and one-shot settings: the
// state of a connection handed to a new user (ResetSession).
func (s *Store) ResetAll() {
	b := s.inErrorTx
	*s = New(s.dsn)
	s.inErrorTx = b
}

// Set is SET name = value: name is a property (any spelling) or an
// extension variable (a name with a dot). NULL sets a property's default.
// A startup or read-only property is refused with FailedPrecondition, an
// unknown one or a bad value with InvalidArgument. When SET LOCAL gave name
// a value in the open transaction, that value stays until the transaction
// ends and this one comes back then.
func (s *Store) Set(name, value string) error {
	s.beforeChange()
	if l := s.local; l != nil && l.has(name) {
		return l.setSaved(name, value)
	}
	return s.set(name, value)
}

// set changes a property or an extension variable in place.
func (s *Store) set(name, value string) error {
	if IsExtension(name) {
		if s.ext == nil {
			s.ext = map[string]string{}
		}
		s.ext[strings.ToLower(name)] = value
		return nil
	}
	return wrap(s.cur.SetVariable(name, value))
}

// Reset is RESET name (and SET name = DEFAULT): the property goes back to
// the DSN's value; an extension variable is dropped, as it did not exist
// when the connection was made. Under a SET LOCAL value, the DSN's value is
// what comes back when the transaction ends.
func (s *Store) Reset(name string) error {
	s.beforeChange()
	if l := s.local; l != nil && l.has(name) {
		return l.resetSaved(name, s.dsn)
	}
	if IsExtension(name) {
		delete(s.ext, strings.ToLower(name))
		return nil
	}
	v, err := s.dsn.Get(name)
	if err == nil {
		err = s.cur.SetVariable(name, v)
	}
	return wrap(err)
}

// Show returns the value SHOW VARIABLE name answers with, typed as
// go-sql-spanner types it (see dsn.Config.Value): a property, a result of
// the connection's last work (commit_timestamp, commit_response,
// read_timestamp) or an extension variable (its text). Secrets are
// redacted.
func (s *Store) Show(name string) (any, error) {
	if IsExtension(name) {
		v, ok := s.ext[strings.ToLower(name)]
		if !ok {
			return nil, status.Errorf(codes.InvalidArgument, "spannerfast: unrecognized configuration property %q", strings.ToLower(name))
		}
		return v, nil
	}
	if d, ok := dsn.Declaration(name); ok && d.Scope == dsn.ScopeReadOnly && !d.PostgreSQL {
		// A result the connection keeps (the read-only PostgreSQL
		// settings are the configuration's).
		return s.last.show(d.Name)
	}
	v, err := s.cur.Value(name)
	return v, wrap(err)
}

// IsExtension reports whether name (without a spanner. prefix) is an
// extension variable: a name with a dot, which go-sql-spanner keeps as text
// without knowing it.
func IsExtension(name string) bool { return strings.Contains(name, ".") }

// TakeStatementTag returns statement_tag for a statement about to run and
// clears it: it tags only the next statement, as go-sql-spanner's does.
func (s *Store) TakeStatementTag() string {
	tag := s.cur.StatementTag
	s.cur.StatementTag = ""
	return tag
}

// TakeTransactionTag returns transaction_tag for a read-write transaction
// being set up and clears it: it tags only the next one.
func (s *Store) TakeTransactionTag() string {
	tag := s.cur.TransactionTag
	s.cur.TransactionTag = ""
	return tag
}

// wrap prefixes a dsn error; it keeps the error's gRPC code
// (InvalidArgument, or FailedPrecondition for a startup or read-only
// property) and its kind for errors.Is.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("spannerfast: %w", err)
}
