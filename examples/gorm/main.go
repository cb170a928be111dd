// Command gorm uses GORM on spannerfast through the spannergorm dialector:
// AutoMigrate of a small model set (singers with albums, ARRAY and
// timestamp columns), inserts single and batched, queries with conditions
// and a preloaded association, an update, a delete and transactions.
//
//	go run ./examples/gorm
//
// It starts the embedded server (spannerfasttest) in-process, or uses a new
// database on the emulator when SPANNER_EMULATOR_HOST is set. Keys are
// chosen by the application: the embedded server has no sequences, so
// auto-increment keys (IDENTITY columns on Spanner) are not used here.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/embedded"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// Singer has many albums; Genres is an ARRAY<STRING(MAX)> column.
type Singer struct {
	ID        int64  `gorm:"primaryKey;autoIncrement:false"`
	Name      string `gorm:"size:100;not null;index"`
	Genres    spannergorm.Array[string]
	CreatedAt time.Time
	UpdatedAt time.Time
	Albums    []Album
}

// Album belongs to a singer.
type Album struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	SingerID    int64 `gorm:"not null"`
	Title       string
	ReleaseDate spanner.NullDate
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	target, err := embedded.ForExample("gorm")
	if err != nil {
		return err
	}
	defer target.Close()
	fmt.Fprintln(w, "running on", target)
	db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: target.DSN()}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	defer func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	}()
	db = db.WithContext(ctx)
	for _, step := range []func(*gorm.DB, io.Writer) error{migrate, insert, query, update, transactions} {
		if err := step(db, w); err != nil {
			return err
		}
	}
	return nil
}

func migrate(db *gorm.DB, w io.Writer) error {
	stmts, err := spannergorm.MigrationStatements(db, &Singer{}, &Album{})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "AutoMigrate sends, in one DDL batch:")
	for _, s := range stmts {
		fmt.Fprintln(w, "  "+s)
	}
	if err := db.AutoMigrate(&Singer{}, &Album{}); err != nil {
		return err
	}
	tables, err := db.Migrator().GetTables()
	fmt.Fprintf(w, "tables: %s\n", strings.Join(tables, ", "))
	return err
}

func day(y int, m time.Month, d int) spanner.NullDate {
	return spanner.NullDate{Date: civil.Date{Year: y, Month: m, Day: d}, Valid: true}
}

func insert(db *gorm.DB, w io.Writer) error {
	alice := Singer{ID: 1, Name: "Alice", Genres: spannergorm.Array[string]{"rock", "pop"},
		Albums: []Album{
			{ID: 10, Title: "Morning", ReleaseDate: day(2021, 5, 1)},
			{ID: 11, Title: "Evening", ReleaseDate: day(2023, 9, 9)},
		}}
	// GORM's default association save: the albums get Alice's key (an
	// album that already existed would keep its other columns).
	if err := db.Create(&alice).Error; err != nil {
		return err
	}
	more := []Singer{{ID: 2, Name: "Bob"}, {ID: 3, Name: "Carol", Genres: spannergorm.Array[string]{"jazz"}}}
	res := db.Create(&more)
	fmt.Fprintf(w, "inserted 1 singer with 2 albums, then %d singers in one statement\n", res.RowsAffected)
	return res.Error
}

func query(db *gorm.DB, w io.Writer) error {
	var s Singer
	err := db.Preload("Albums", func(tx *gorm.DB) *gorm.DB { return tx.Order("release_date") }).
		Where("name = ?", "Alice").First(&s).Error
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s (genres %v, created %v):\n", s.Name, []string(s.Genres), !s.CreatedAt.IsZero())
	for _, a := range s.Albums {
		fmt.Fprintf(w, "  %d %-8s %s\n", a.ID, a.Title, a.ReleaseDate)
	}
	var names []string
	err = db.Model(&Singer{}).Where("id > ?", 1).Order("id").Pluck("name", &names).Error
	fmt.Fprintf(w, "singers after Alice: %s\n", strings.Join(names, ", "))
	return err
}

func update(db *gorm.DB, w io.Writer) error {
	if err := db.Model(&Singer{ID: 2}).Updates(map[string]any{"name": "Robert",
		"genres": spannergorm.Array[string]{"blues"}}).Error; err != nil {
		return err
	}
	res := db.Delete(&Album{}, 10)
	if res.Error != nil {
		return res.Error
	}
	var n int64
	err := db.Model(&Album{}).Count(&n).Error
	fmt.Fprintf(w, "renamed Bob; deleted %d album, %d left\n", res.RowsAffected, n)
	return err
}

func transactions(db *gorm.DB, w io.Writer) error {
	err := db.Transaction(func(tx *gorm.DB) error {
		return tx.Create(&Album{ID: 20, SingerID: 2, Title: "Blue"}).Error
	})
	if err != nil {
		return err
	}
	// RunTransaction runs the function again if Spanner aborts it.
	err = spannergorm.RunTransaction(context.Background(), db, func(tx *gorm.DB) error {
		var carol Singer
		if err := tx.First(&carol, 3).Error; err != nil {
			return err
		}
		return tx.Model(&carol).Update("genres", append(carol.Genres, "soul")).Error
	})
	if err != nil {
		return err
	}
	var all []Singer
	if err := db.Preload("Albums").Order("id").Find(&all).Error; err != nil {
		return err
	}
	fmt.Fprintln(w, "after the transactions:")
	for _, s := range all {
		fmt.Fprintf(w, "  %d %-7s %-10s %d album(s)\n", s.ID, s.Name, strings.Join(s.Genres, ","), len(s.Albums))
	}
	return nil
}
