package main

import (
	"fmt"
	"os"

	gormspanner "github.com/googleapis/go-gorm-spanner"
	_ "github.com/googleapis/go-sql-spanner" // registers "spanner"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/spannergorm"
)

var armNames = []string{"spannerfast", "spannerfast-prep", "gss", "gss-prep"}

// database is the database path every arm names (the server takes any).
const database = "projects/p/instances/i/databases/d"

type arm struct {
	name string
	db   *gorm.DB
}

// openArm opens the arm's *gorm.DB on the server at addr. Both drivers
// take the same DSN; GORM's options are its defaults but for a silent
// logger and PrepareStmt on the -prep arms.
func openArm(name, addr string) (*arm, error) {
	dsn := addr + "/" + database + ";usePlainText=true"
	cfg := &gorm.Config{Logger: logger.Discard}
	var d gorm.Dialector
	switch name {
	case "spannerfast", "spannerfast-prep":
		d = spannergorm.New(spannergorm.Config{DSN: dsn})
	case "gss", "gss-prep":
		// The official client under go-sql-spanner reaches a local
		// server as it does the emulator, which also turns off its
		// built-in metrics export.
		if err := os.Setenv("SPANNER_EMULATOR_HOST", addr); err != nil {
			return nil, err
		}
		d = gormspanner.New(gormspanner.Config{DriverName: "spanner", DSN: dsn})
	default:
		return nil, fmt.Errorf("unknown arm %q (known: %v)", name, armNames)
	}
	cfg.PrepareStmt = name == "spannerfast-prep" || name == "gss-prep"
	db, err := gorm.Open(d, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: gorm.Open: %w", name, err)
	}
	return &arm{name: name, db: db}, nil
}

func (a *arm) close() {
	if sqlDB, err := a.db.DB(); err == nil {
		sqlDB.Close()
	}
}
