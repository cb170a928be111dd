package gormcore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// batchDriver is a database/sql driver whose connections keep a DDL batch
// as spannerfast's do: START BATCH DDL opens it on the connection, RUN
// BATCH needs it, and a connection given back to the pool loses it
// (ResetSession). Every statement is logged with its connection's number.
type batchDriver struct {
	mu    sync.Mutex
	conns int
	log   []string
}

func (d *batchDriver) Connect(context.Context) (driver.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conns++
	return &batchConn{d: d, id: d.conns}, nil
}

func (d *batchDriver) Driver() driver.Driver { return nil }

func (d *batchDriver) statements() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.log...)
}

type batchConn struct {
	d     *batchDriver
	id    int
	batch bool
}

func (c *batchConn) exec(query string) error {
	c.d.mu.Lock()
	c.d.log = append(c.d.log, fmt.Sprintf("%d:%s", c.id, query))
	c.d.mu.Unlock()
	switch query {
	case "START BATCH DDL":
		c.batch = true
	case "RUN BATCH", "ABORT BATCH":
		if !c.batch {
			return errors.New("the connection has no active batch")
		}
		c.batch = false
	}
	return nil
}

func (c *batchConn) ResetSession(context.Context) error { c.batch = false; return nil }
func (c *batchConn) Prepare(q string) (driver.Stmt, error) {
	return batchStmt{c: c, q: q}, nil
}
func (c *batchConn) Close() error              { return nil }
func (c *batchConn) Begin() (driver.Tx, error) { return c, nil }
func (c *batchConn) Commit() error             { return nil }
func (c *batchConn) Rollback() error           { return nil }
func (c *batchConn) ExecContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(0), c.exec(q)
}

type batchStmt struct {
	c *batchConn
	q string
}

func (s batchStmt) Close() error  { return nil }
func (s batchStmt) NumInput() int { return -1 }
func (s batchStmt) Exec([]driver.Value) (driver.Result, error) {
	return driver.RowsAffected(0), s.c.exec(s.q)
}
func (s batchStmt) Query([]driver.Value) (driver.Rows, error) { return emptyRows{}, s.c.exec(s.q) }

type emptyRows struct{}

func (emptyRows) Columns() []string         { return nil }
func (emptyRows) Close() error              { return nil }
func (emptyRows) Next([]driver.Value) error { return io.EOF }

// openBatchDB opens GORM on a batchDriver pool with cfg.
func openBatchDB(t *testing.T, cfg *gorm.Config) (*gorm.DB, *batchDriver) {
	t.Helper()
	d := &batchDriver{}
	sqlDB := sql.OpenDB(d)
	t.Cleanup(func() { _ = sqlDB.Close() })
	cfg.Logger = logger.Discard
	db, err := gorm.Open(testDialector{pool: sqlDB}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return db, d
}

// migrate runs InBatch with a CREATE TABLE and a query between the batch
// statements: the query hands a pooled connection back, as the migrator's
// INFORMATION_SCHEMA queries do.
func migrate(db *gorm.DB) error {
	return InBatch(db, func(d *gorm.DB) batcher { return batcher{d} }, func(b batcher) error {
		if err := b.db.Exec("CREATE TABLE a").Error; err != nil {
			return err
		}
		var n int
		if err := b.db.Raw("SELECT 1").Scan(&n).Error; err != nil {
			return err
		}
		return b.db.Exec("CREATE TABLE b").Error
	})
}

// getDBPool is a custom ConnPool over a *sql.DB that says which *sql.DB
// it uses, as GORM's GetDBConnector asks.
// Only the gorm.ConnPool methods of the *sql.DB are promoted, not Conn.
type getDBPool struct {
	gorm.ConnPool
	db *sql.DB
}

func (p getDBPool) GetDBConn() (*sql.DB, error) { return p.db, nil }

// opaquePool is a custom ConnPool that gives no way to one connection.
type opaquePool struct{ gorm.ConnPool }

// TestPinEveryPool: for each connection pool GORM can hand a migrator, the
// whole DDL batch (START BATCH DDL, the DDL with a query in between, RUN
// BATCH) runs on one connection that is not given back to the pool in
// between; a pool that cannot be pinned is refused, naming its type.
func TestPinEveryPool(t *testing.T) {
	want := []string{"START BATCH DDL", "CREATE TABLE a", "SELECT 1", "CREATE TABLE b", "RUN BATCH"}
	for _, c := range []struct {
		name string
		cfg  gorm.Config
		run  func(db *gorm.DB) error
	}{
		{"sql.DB", gorm.Config{}, migrate},
		{"SkipDefaultTransaction", gorm.Config{SkipDefaultTransaction: true}, migrate},
		{"PrepareStmt", gorm.Config{PrepareStmt: true}, migrate},
		{"Session PrepareStmt", gorm.Config{}, func(db *gorm.DB) error {
			return migrate(db.Session(&gorm.Session{PrepareStmt: true}))
		}},
		{"Session PrepareStmt SkipDefaultTransaction", gorm.Config{}, func(db *gorm.DB) error {
			return migrate(db.Session(&gorm.Session{PrepareStmt: true, SkipDefaultTransaction: true}))
		}},
		{"Connection", gorm.Config{}, func(db *gorm.DB) error {
			return db.Connection(func(tx *gorm.DB) error { return migrate(tx) })
		}},
		{"Connection PrepareStmt", gorm.Config{PrepareStmt: true}, func(db *gorm.DB) error {
			return db.Connection(func(tx *gorm.DB) error { return migrate(tx) })
		}},
		{"Transaction", gorm.Config{}, func(db *gorm.DB) error {
			return db.Transaction(func(tx *gorm.DB) error { return migrate(tx) })
		}},
		{"Transaction PrepareStmt", gorm.Config{PrepareStmt: true}, func(db *gorm.DB) error {
			return db.Transaction(func(tx *gorm.DB) error { return migrate(tx) })
		}},
		{"GetDBConn pool", gorm.Config{}, func(db *gorm.DB) error {
			sqlDB, _ := db.DB()
			tx := db.Session(&gorm.Session{})
			tx.Statement.ConnPool = getDBPool{ConnPool: sqlDB, db: sqlDB}
			return migrate(tx)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, d := openBatchDB(t, &c.cfg)
			if err := c.run(db); err != nil {
				t.Fatalf("InBatch: %v; statements %q", err, d.statements())
			}
			got := d.statements()
			if len(got) != len(want) {
				t.Fatalf("statements %q, want %q on one connection", got, want)
			}
			var conn string
			for i, s := range got {
				id, q, _ := strings.Cut(s, ":")
				if i == 0 {
					conn = id
				}
				if q != want[i] || id != conn {
					t.Fatalf("statements %q, want %q on one connection", got, want)
				}
			}
		})
	}
}

// TestPinRefusesOpaquePool: a custom pool without Conn(ctx) or GetDBConn
// is refused before any statement, with an error that names its type and
// has code FailedPrecondition; wrapped in PrepareStmt too.
func TestPinRefusesOpaquePool(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		db, d := openBatchDB(t, &gorm.Config{})
		sqlDB, _ := db.DB()
		tx := db.Session(&gorm.Session{})
		tx.Statement.ConnPool = opaquePool{sqlDB}
		if prepared {
			tx.Statement.ConnPool = &gorm.PreparedStmtDB{ConnPool: tx.Statement.ConnPool}
		}
		err := migrate(tx)
		var pe *UnpinnablePoolError
		if !errors.As(err, &pe) || status.Code(err) != codes.FailedPrecondition ||
			!strings.Contains(err.Error(), "gormcore.opaquePool") {
			t.Fatalf("prepared=%v: InBatch on an opaque pool: %v, want UnpinnablePoolError naming gormcore.opaquePool", prepared, err)
		}
		if got := d.statements(); len(got) != 0 {
			t.Fatalf("prepared=%v: statements %q sent on an unpinnable pool", prepared, got)
		}
	}
}
