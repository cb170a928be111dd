package conn

import "database/sql/driver"

// QueryOptions change how one statement runs. Pass a QueryOptions as one of
// the statement's arguments: the driver takes it out of the parameter list
// (it is never sent to Spanner) and applies it to that statement only.
type QueryOptions struct {
	// RawDecode, when not nil, overrides the connection's raw_decode for
	// this query.
	RawDecode *bool
}

// takeQueryOptions returns the options given with the current statement's
// arguments and forgets them. database/sql checks a statement's arguments
// and runs it while holding the connection, so nothing else can interleave.
func (c *Conn) takeQueryOptions() QueryOptions {
	o := c.pendingOptions
	c.pendingOptions = QueryOptions{}
	return o
}

// checkQueryOptions keeps QueryOptions arguments for the statement they
// came with and tells database/sql to drop them from the parameters.
func (c *Conn) checkQueryOptions(nv *driver.NamedValue) (bool, error) {
	o, ok := nv.Value.(QueryOptions)
	if !ok {
		return false, nil
	}
	if o.RawDecode != nil {
		c.pendingOptions.RawDecode = o.RawDecode
	}
	return true, driver.ErrRemoveArgument
}
