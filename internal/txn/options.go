package txn

import "cloud.google.com/go/spanner/apiv1/spannerpb"

// readWriteOptions holds a read-write transaction's options with their
// mode and its message, so that they are one allocation instead of three.
type readWriteOptions struct {
	opts spannerpb.TransactionOptions
	mode spannerpb.TransactionOptions_ReadWrite_
	rw   spannerpb.TransactionOptions_ReadWrite
}

// ReadWriteBegin returns the options that begin a read-write transaction
// (Options.Begin): its read lock mode, isolation level and whether change
// streams leave it out. The transaction owns them: SET TRANSACTION may
// change them in place.
func ReadWriteBegin(lock spannerpb.TransactionOptions_ReadWrite_ReadLockMode, isolation spannerpb.TransactionOptions_IsolationLevel, excludeFromChangeStreams bool) *spannerpb.TransactionOptions {
	o := &readWriteOptions{}
	o.rw.ReadLockMode = lock
	o.mode.ReadWrite = &o.rw
	o.opts.Mode = &o.mode
	o.opts.IsolationLevel = isolation
	o.opts.ExcludeTxnFromChangeStreams = excludeFromChangeStreams
	return &o.opts
}
