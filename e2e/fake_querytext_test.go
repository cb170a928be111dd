package e2e

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// The marker is in every statement of TestFakeQueryTextOmittedEverywhere,
// and in the errors the fake server gives for them.
const secretMarker = "zq_secret"

// syncBuffer is a bytes.Buffer for a logger that goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestFakeQueryTextOmittedEverywhere: with disable_query_text_in_traces no
// statement text reaches telemetry, error texts included, while the
// errors the application gets keep theirs. The statements fail in the ways
// whose error texts quote SQL: a replay that saw other rows and one that
// saw another error (ErrAbortedDueToConcurrentModification quotes the
// statement, the second also both server errors), and statements that
// Spanner refuses with a message quoting the SQL, in and outside a
// transaction. Every string recorded is then searched for the marker the
// statements carry: all of each span (walked by reflection: name,
// attributes, status, events and their attributes, links, resource), all
// of each log record as a text handler writes it (message, every attribute
// and group), and every metric data point (walked by reflection, attribute
// sets included).
func TestFakeQueryTextOmittedEverywhere(t *testing.T) {
	ctx := context.Background()
	const (
		query     = "SELECT " + secretMarker + " FROM t"
		update    = "UPDATE t SET " + secretMarker + " = 1 WHERE true"
		badQuery  = "SELECT " + secretMarker + " FROM FROM t"
		badUpdate = "UPDATE t SET " + secretMarker + " = = 2 WHERE true"
	)
	syntaxError := func(sql string) error {
		return status.Error(codes.InvalidArgument, "Syntax error: Unexpected keyword near "+sql)
	}
	aborted := fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)
	s := fakespanner.Start(t)
	s.AddResult(query, &fakespanner.Result{ResultSet: stringRows("a", "b")})
	s.AddResult(update, fakespanner.DML(1))
	s.AddResult(badQuery, &fakespanner.Result{ResultSet: stringRows("a"), Faults: []fakespanner.Fault{{Err: syntaxError(badQuery), Times: -1}}})
	s.AddResult(badUpdate, &fakespanner.Result{ResultSet: fakespanner.DML(1).ResultSet, Faults: []fakespanner.Fault{{Err: syntaxError(badUpdate), Times: -1}}})

	logs := new(syncBuffer)
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	db, k := openTracedWith(t, s, []sfdriver.ConnectorOption{sfdriver.WithLogger(logger)}, "disable_query_text_in_traces=true")

	// The application's errors keep the statement.
	keepsText := func(what string, err error, changed bool) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), secretMarker) {
			t.Fatalf("%s: %v, want an error quoting the statement", what, err)
		}
		if changed != errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) {
			t.Fatalf("%s: %v; ErrAbortedDueToConcurrentModification %v", what, err, changed)
		}
	}

	// A replay that reads other rows.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, query))
	s.AddResult(query, &fakespanner.Result{ResultSet: stringRows("a", "c")})
	s.AddMethodFault("Commit", fakespanner.Fault{Err: aborted})
	keepsText("commit after a replay that read other rows", tx.Commit(), true)

	// A replay whose statement fails with another error than the first
	// time: both errors quote the statement.
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, update); err != nil {
		t.Fatal(err)
	}
	_, err = tx.ExecContext(ctx, badUpdate)
	keepsText("refused UPDATE in a transaction", err, false)
	s.AddResult(badUpdate, &fakespanner.Result{ResultSet: fakespanner.DML(1).ResultSet,
		Faults: []fakespanner.Fault{{Err: status.Error(codes.InvalidArgument, "Column not found near "+badUpdate), Times: -1}}})
	s.AddMethodFault("Commit", fakespanner.Fault{Err: aborted})
	keepsText("commit after a replay that failed otherwise", tx.Commit(), true)

	// Statements Spanner refuses, quoting them.
	_, err = db.QueryContext(ctx, badQuery)
	keepsText("refused query", err, false)
	_, err = db.ExecContext(ctx, badUpdate)
	keepsText("refused autocommit UPDATE", err, false)

	var rm metricdata.ResourceMetrics
	if err := k.reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	ended := k.spans.Ended()
	recorded := map[string][]string{"logs": {logs.String()}}
	for _, sp := range ended {
		recorded["span "+sp.Name()] = append(recorded["span "+sp.Name()], stringsIn(sp)...)
	}
	recorded["metrics"] = stringsIn(rm)
	var all strings.Builder
	for where, ss := range recorded {
		for _, s := range ss {
			if strings.Contains(s, secretMarker) {
				t.Errorf("%s records %q", where, s)
			}
			all.WriteString(s)
			all.WriteByte('\n')
		}
	}
	// What was searched is what the failures recorded: the replays'
	// outcomes, the refusals' codes and the omission.
	for _, want := range []string{"data_changed", "replaying a statement: the first 2 rows differ",
		"replaying a statement: error: error code InvalidArgument, first time error code InvalidArgument",
		"InvalidArgument: error text omitted", "exception", "db.client.operation.duration"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("nothing recorded %q: the search missed what it should cover", want)
		}
	}
	if !strings.Contains(logs.String(), "data_changed") {
		t.Errorf("logs %q: no replay outcome", logs.String())
	}
}

// stringsIn returns every string reachable from v: fields (exported or
// not), elements, map keys and values, through pointers and interfaces.
func stringsIn(v any) []string {
	var out []string
	seen := map[uintptr]bool{}
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			out = append(out, v.String())
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Key())
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(v))
	return out
}
