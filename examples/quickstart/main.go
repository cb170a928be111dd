// Command quickstart reads rows from Spanner through spannerfast.
//
//	go run ./examples/quickstart                 # embedded in-process server
//	go run ./examples/quickstart -dsn 'projects/p/instances/i/databases/d'
//
// With no -dsn it starts the embedded server (spannerfasttest) in-process,
// or, when SPANNER_EMULATOR_HOST is set, creates a new database on that
// emulator (autoConfigEmulator=true) and drops it at the end, as every
// example does. Everything then goes through database/sql and the
// "spannerfast" driver: it creates a table (DDL), loads a few thousand rows
// (mutations through Apply) and queries them.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	spannerdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

const rowCount = 3000

const ddl = `CREATE TABLE Products (
	Id INT64 NOT NULL,
	Name STRING(MAX),
	Price FLOAT64,
	InStock BOOL,
	Added TIMESTAMP,
	Released DATE,
	Tags ARRAY<STRING(MAX)>
) PRIMARY KEY (Id)`

func main() {
	dsnFlag := flag.String("dsn", "", "spannerfast DSN of an existing database (default: embedded server, or the emulator when SPANNER_EMULATOR_HOST is set)")
	flag.Parse()
	if err := run(context.Background(), *dsnFlag); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, dsnString string) error {
	if dsnString == "" {
		target, err := embedded.ForExample("quickstart")
		if err != nil {
			return err
		}
		defer target.Close()
		dsnString = target.DSN()
		fmt.Println("running on", target)
	}
	db, err := sql.Open("spannerfast", dsnString)
	if err != nil {
		return err
	}
	defer db.Close()
	// Ping opens the session (and, with autoConfigEmulator, creates the
	// instance and database) before the table is created.
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	if err := load(ctx, db); err != nil {
		return err
	}
	return query(ctx, db)
}

// load creates the table (unless it exists) and writes rowCount rows with
// one Apply of mutations.
func load(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, ddl); err != nil && status.Code(err) != codes.AlreadyExists &&
		!strings.Contains(strings.ToLower(err.Error()), "duplicate") && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("create table: %w", err)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var ms []*spanner.Mutation
	for i := range rowCount {
		ms = append(ms, spanner.InsertOrUpdate("Products",
			[]string{"Id", "Name", "Price", "InStock", "Added", "Released", "Tags"},
			[]any{int64(i), fmt.Sprintf("product-%04d", i), float64(i%500) + 0.99, i%3 != 0,
				base.Add(time.Duration(i) * time.Minute), civil.DateOf(base.AddDate(0, 0, i%365)),
				[]string{"tag" + fmt.Sprint(i%7), "batch" + fmt.Sprint(i/1000)}}))
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	err = c.Raw(func(dc any) error {
		_, err := dc.(spannerdriver.SpannerConn).Apply(ctx, ms)
		return err
	})
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	fmt.Printf("loaded %d rows in %v\n", rowCount, time.Since(start).Round(time.Millisecond))
	return nil
}

func query(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx,
		"SELECT Id, Name, Price, InStock, Added, Released, Tags FROM Products WHERE Price > @min ORDER BY Id LIMIT 5",
		sql.Named("min", 100.0))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id       int64
			name     string
			price    float64
			inStock  bool
			added    time.Time
			released civil.Date
			tags     []spanner.NullString
		)
		if err := rows.Scan(&id, &name, &price, &inStock, &added, &released, &tags); err != nil {
			return err
		}
		fmt.Printf("%4d  %-12s  %7.2f  %-5v  %s  %s  %v\n", id, name, price, inStock,
			added.Format(time.RFC3339), released, tags)
	}
	if err := rows.Err(); err != nil {
		return err
	}

	start := time.Now()
	var n, sum int64
	all, err := db.QueryContext(ctx, "SELECT Id FROM Products")
	if err != nil {
		return err
	}
	defer all.Close()
	for all.Next() {
		var id int64
		if err := all.Scan(&id); err != nil {
			return err
		}
		n++
		sum += id
	}
	if err := all.Err(); err != nil {
		return err
	}
	fmt.Printf("read %d rows through spannerfast in %v (sum of ids %d)\n", n, time.Since(start).Round(time.Millisecond), sum)
	return nil
}
