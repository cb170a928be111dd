package connstate

import (
	"maps"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// snapshot is the values before the open transaction's first change, for
// connection_state_type=TRANSACTIONAL.
type snapshot struct {
	cur dsn.Config
	ext map[string]string
}

// locals is what SET LOCAL changed in the open transaction: the values to
// put back when it ends.
type locals struct {
	saved dsn.Config         // the values as they were (plus plain SETs since)
	props map[string]bool    // canonical names of the properties set locally
	ext   map[string]*string // extension variables: the value before, nil if unset
}

// BeginTransaction records that a transaction is open: SET LOCAL may be
// used until EndTransaction, and under connection_state_type=TRANSACTIONAL
// changes from now on belong to the transaction.
func (s *Store) BeginTransaction() {
	s.EndTransaction(true) // one that was never said to end ends now
	s.inTxn, s.txFailed = true, false
}

// InTransaction reports whether a transaction is open.
func (s *Store) InTransaction() bool { return s.inTxn }

// EndTransaction records that the open transaction ended: the values SET
// LOCAL changed come back, and under connection_state_type=TRANSACTIONAL a
// transaction that did not commit takes its changes with it.
func (s *Store) EndTransaction(committed bool) {
	if !s.inTxn {
		return
	}
	s.inTxn, s.txFailed = false, false
	if l := s.local; l != nil {
		s.local = nil
		for name := range l.props {
			if v, err := l.saved.Get(name); err == nil {
				_ = s.cur.SetVariable(name, v) // the value was valid before
			}
		}
		for name, v := range l.ext {
			switch {
			case v == nil:
				delete(s.ext, name)
			case s.ext == nil:
				s.ext = map[string]string{name: *v}
			default:
				s.ext[name] = *v
			}
		}
	}
	if sn := s.snap; sn != nil {
		s.snap = nil
		if !committed {
			s.cur, s.ext = sn.cur, sn.ext
		}
	}
}

// transactional reports whether property changes in a transaction belong
// to it.
func (s *Store) transactional() bool {
	return s.cur.StateType() == dsn.ConnectionStateTransactional
}

// beforeChange runs before Set, SetLocal or Reset changes anything: with
// transactional connection state, the first change in a transaction
// remembers the values as they were.
func (s *Store) beforeChange() {
	if !s.inTxn || s.snap != nil || !s.transactional() {
		return
	}
	s.snap = &snapshot{cur: s.cur}
	if s.ext != nil {
		s.snap.ext = maps.Clone(s.ext)
	}
}

// errNoTxn refuses SET LOCAL outside a transaction.
var errNoTxn = status.Error(codes.FailedPrecondition, "spannerfast: SET LOCAL needs an open transaction")

// SetLocal is SET LOCAL name = value: name has value until the open
// transaction ends. Errors are Set's; outside a transaction it is refused
// with FailedPrecondition.
func (s *Store) SetLocal(name, value string) error {
	if !s.inTxn {
		return errNoTxn
	}
	if IsExtension(name) {
		return s.setLocalExtension(name, &value)
	}
	s.beforeChange()
	l := s.localsOfTxn()
	if err := s.set(name, value); err != nil {
		return err
	}
	l.props[key(name)] = true
	s.local = l
	return nil
}

// ResetLocal is SET LOCAL name = DEFAULT: the DSN's value until the open
// transaction ends; an extension variable is gone for that time.
func (s *Store) ResetLocal(name string) error {
	if !s.inTxn {
		return errNoTxn
	}
	if IsExtension(name) {
		return s.setLocalExtension(name, nil)
	}
	v, err := s.dsn.Get(name)
	if err != nil {
		return wrap(err)
	}
	return s.SetLocal(name, v)
}

// localsOfTxn returns the open transaction's local values, new if none.
func (s *Store) localsOfTxn() *locals {
	if s.local != nil {
		return s.local
	}
	return &locals{saved: s.cur, props: map[string]bool{}, ext: map[string]*string{}}
}

// setLocalExtension sets an extension variable until the open transaction
// ends; nil removes it for that time.
func (s *Store) setLocalExtension(name string, value *string) error {
	s.beforeChange()
	l := s.localsOfTxn()
	k := key(name)
	if _, ok := l.ext[k]; !ok {
		var before *string
		if v, ok := s.ext[k]; ok {
			before = &v
		}
		l.ext[k] = before
	}
	s.local = l
	if value == nil {
		delete(s.ext, k)
		return nil
	}
	return s.set(name, *value)
}

// key is the name under which a local value is remembered.
func key(name string) string {
	if canonical, ok := dsn.CanonicalName(name); ok {
		return canonical
	}
	return strings.ToLower(name)
}

func (l *locals) has(name string) bool {
	k := key(name)
	_, ext := l.ext[k]
	return l.props[k] || ext
}

// setSaved changes the value that comes back at the end of the transaction.
func (l *locals) setSaved(name, value string) error {
	if IsExtension(name) {
		l.ext[key(name)] = &value
		return nil
	}
	return wrap(l.saved.SetVariable(name, value))
}

// resetSaved makes RESET's value the one that comes back.
func (l *locals) resetSaved(name string, d *dsn.Config) error {
	if IsExtension(name) {
		l.ext[key(name)] = nil
		return nil
	}
	v, err := d.Get(name)
	if err == nil {
		err = l.saved.SetVariable(name, v)
	}
	return wrap(err)
}

// IsLocal reports whether SET LOCAL gave name a value in the open
// transaction.
func (s *Store) IsLocal(name string) bool {
	return s.local != nil && s.local.has(name)
}
