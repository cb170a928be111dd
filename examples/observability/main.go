// Command observability shows the traces and metrics spannerfast gives an
// application that installs the OpenTelemetry SDK: it runs a read-write
// transaction (a query, two DML statements, a commit) and prints the spans
// it made, as a tree with their attributes, and the metrics it recorded.
//
//	go run ./examples/observability
//
// It starts the embedded server (spannerfasttest) in-process (or uses a new
// database on the emulator when SPANNER_EMULATOR_HOST is set). The driver
// uses OpenTelemetry's global TracerProvider and MeterProvider, as the
// official client does, so installing the SDK's providers with
// otel.SetTracerProvider and otel.SetMeterProvider is all it takes; a
// service would give them an exporter to its tracing and metrics backend.
// Here the SDK's in-memory span recorder and manual metric reader collect
// everything, and the example prints it: the values that change from run
// to run (request ids, timestamps, durations) are not printed, so the
// output is the same each time.
package main

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	_ "github.com/spannerfast/spannerfast/driver" // registers "spannerfast"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// The SDK: every span is recorded, every metric kept until collected.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	prevTP, prevMP := otel.GetTracerProvider(), otel.GetMeterProvider()
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	defer func() {
		otel.SetTracerProvider(prevTP)
		otel.SetMeterProvider(prevMP)
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}()

	target, err := embedded.ForExample("observability")
	if err != nil {
		return err
	}
	defer target.Close()
	fmt.Fprintln(w, "running on", target)
	db, err := sql.Open("spannerfast", target.DSN())
	if err != nil {
		return err
	}
	if err := work(ctx, db); err != nil {
		db.Close()
		return err
	}
	// Closing the pool closes its connections: the open-connection count
	// below goes back to 0.
	if err := db.Close(); err != nil {
		return err
	}

	// The schema change made spans too; the transaction's are the ones of
	// interest here, with everything below them.
	printSpans(w, spans.Ended(), "cloud.google.com/go/spanner.ReadWriteTransaction")
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return err
	}
	printMetrics(w, rm)
	return nil
}

// work creates a table and runs one read-write transaction on it.
func work(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE Accounts (
		Id      INT64 NOT NULL,
		Owner   STRING(MAX),
		Balance INT64,
	) PRIMARY KEY (Id)`); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	if _, err := tx.ExecContext(ctx, "INSERT INTO Accounts (Id, Owner, Balance) VALUES (1, 'alice', 100), (2, 'bob', 50)"); err != nil {
		return err
	}
	var total int64
	if err := tx.QueryRowContext(ctx, "SELECT SUM(Balance) FROM Accounts").Scan(&total); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Accounts SET Balance = Balance + 10 WHERE Id = 2"); err != nil {
		return err
	}
	return tx.Commit()
}

// shared are the attributes every span and every measurement of a
// connector carry: printed once, not on every line.
var shared = map[attribute.Key]bool{
	"db.system.name": true, "db.namespace": true, "server.address": true, "server.port": true,
}

// varying are the attributes whose values differ from run to run: shown
// as such.
var varying = map[attribute.Key]bool{
	"x_goog_spanner_request_id": true, "spanner.commit_timestamp": true, "spanner.read_timestamp": true,
	"database": true, // the native metrics' database id: on the emulator, a new one each run
}

// text is an attribute's value as printed.
func text(a attribute.KeyValue) string {
	if varying[a.Key] {
		return "<varies>"
	}
	return a.Value.Emit()
}

// printSpans prints the trees of spans under each span named root: one line
// per span, indented below its parent, with its attributes in key order.
func printSpans(w io.Writer, ended []sdktrace.ReadOnlySpan, root string) {
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	for _, s := range ended {
		children[s.Parent().SpanID()] = append(children[s.Parent().SpanID()], s)
	}
	for _, c := range children {
		// In the order they started: the order the application ran them.
		slices.SortStableFunc(c, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	}
	var print func(s sdktrace.ReadOnlySpan, depth int)
	print = func(s sdktrace.ReadOnlySpan, depth int) {
		indent := strings.Repeat("  ", depth)
		fmt.Fprintf(w, "%sspan %s", indent, s.Name())
		if s.Status().Code.String() == "Error" {
			fmt.Fprintf(w, " (error: %s)", s.Status().Description)
		}
		fmt.Fprintln(w)
		for _, a := range sortedAttrs(s.Attributes()) {
			if !shared[a.Key] {
				fmt.Fprintf(w, "%s    %s = %s\n", indent, a.Key, text(a))
			}
		}
		for _, e := range s.Events() {
			fmt.Fprintf(w, "%s    event %s\n", indent, e.Name)
		}
		for _, c := range children[s.SpanContext().SpanID()] {
			print(c, depth+1)
		}
	}
	fmt.Fprintln(w, "== spans (each also has db.system.name, db.namespace, server.address, server.port)")
	for _, s := range ended {
		if s.Name() == root {
			print(s, 0)
		}
	}
}

// printMetrics prints every metric spannerfast recorded: its name and unit,
// then one line per data point with its attributes; a sum gives its value,
// a histogram its count (durations differ from run to run). Metrics and
// points are sorted so that the output is stable.
func printMetrics(w io.Writer, rm metricdata.ResourceMetrics) {
	fmt.Fprintln(w, "== metrics (the driver's own also have db.system.name, db.namespace, server.address, server.port)")
	var ms []metricdata.Metrics
	for _, sm := range rm.ScopeMetrics {
		ms = append(ms, sm.Metrics...)
	}
	slices.SortFunc(ms, func(a, b metricdata.Metrics) int { return cmp.Compare(a.Name, b.Name) })
	for _, m := range ms {
		var lines []string
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				lines = append(lines, fmt.Sprintf("%s: %d", attrText(p.Attributes), p.Value))
			}
		case metricdata.Sum[float64]:
			for _, p := range d.DataPoints {
				lines = append(lines, fmt.Sprintf("%s: %g", attrText(p.Attributes), p.Value))
			}
		case metricdata.Gauge[int64]:
			for _, p := range d.DataPoints {
				lines = append(lines, fmt.Sprintf("%s: %d", attrText(p.Attributes), p.Value))
			}
		case metricdata.Histogram[float64]:
			for _, p := range d.DataPoints {
				lines = append(lines, fmt.Sprintf("%s: count %d", attrText(p.Attributes), p.Count))
			}
		case metricdata.Histogram[int64]:
			for _, p := range d.DataPoints {
				lines = append(lines, fmt.Sprintf("%s: count %d", attrText(p.Attributes), p.Count))
			}
		}
		slices.Sort(lines)
		fmt.Fprintf(w, "metric %s (%s)\n", m.Name, m.Unit)
		for _, l := range lines {
			fmt.Fprintln(w, "    "+l)
		}
	}
}

func sortedAttrs(kvs []attribute.KeyValue) []attribute.KeyValue {
	kvs = slices.Clone(kvs)
	slices.SortFunc(kvs, func(a, b attribute.KeyValue) int { return cmp.Compare(a.Key, b.Key) })
	return kvs
}

// attrText is a data point's attributes as {k=v, ...}, in key order (a
// Set iterates sorted).
func attrText(set attribute.Set) string {
	var parts []string
	for it := set.Iter(); it.Next(); {
		a := it.Attribute()
		if !shared[a.Key] {
			parts = append(parts, string(a.Key)+"="+text(a))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
