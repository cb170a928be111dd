package gormcore

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// Batcher is a migrator that can group its DDL into one batch on its
// connection (START BATCH DDL, RUN BATCH, ABORT BATCH).
type Batcher interface {
	StartBatchDDL() error
	RunBatch() error
	AbortBatch() error
}

// InBatch runs fn with a migrator pinned to one connection of db's pool,
// inside a DDL batch that is sent when fn succeeds and dropped when it
// fails: a batch is connection state, and a pool would scatter it.
// newMigrator makes the dialect's migrator for the pinned session.
func InBatch[M Batcher](db *gorm.DB, newMigrator func(*gorm.DB) M, fn func(M) error) (err error) {
	pinned, release, err := Pin(db)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := release(); err == nil {
			err = cerr
		}
	}()
	mg := newMigrator(pinned)
	if err := mg.StartBatchDDL(); err != nil {
		return err
	}
	if err := fn(mg); err != nil {
		return errors.Join(err, mg.AbortBatch())
	}
	return mg.RunBatch()
}

// Context is the context of db's statement, or Background.
func Context(db *gorm.DB) context.Context {
	if db.Statement != nil && db.Statement.Context != nil {
		return db.Statement.Context
	}
	return context.Background()
}
