package rows_test

import (
	"database/sql/driver"
	"io"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/rows"
)

// readRows reads every row of r into fresh slices.
func readRows(t *testing.T, r driver.Rows) [][]driver.Value {
	t.Helper()
	var out [][]driver.Value
	for {
		dest := make([]driver.Value, len(r.Columns()))
		if err := r.Next(dest); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, dest)
	}
}

// TestValuesAndList: the results made on the client give their rows once.
func TestValuesAndList(t *testing.T) {
	one := rows.OneRow([]string{"A", "B"}, int64(1), "x")
	if got := readRows(t, one); !reflect.DeepEqual(got, [][]driver.Value{{int64(1), "x"}}) || !reflect.DeepEqual(one.Columns(), []string{"A", "B"}) {
		t.Errorf("OneRow: %v in %v", got, one.Columns())
	}
	none := rows.NoRows()
	if got := readRows(t, none); got != nil || none.Columns() != nil {
		t.Errorf("NoRows: %v in %v", got, none.Columns())
	}
	l := rows.NewList([]string{"PARTITION"})
	l.Append([]driver.Value{"a"})
	l.Append([]driver.Value{"b"})
	if got := readRows(t, l); !reflect.DeepEqual(got, [][]driver.Value{{"a"}, {"b"}}) {
		t.Errorf("List: %v", got)
	}
	l.Append([]driver.Value{"c"})
	if err := l.Close(); err != nil || readRows(t, l) != nil {
		t.Errorf("List after Close: rows left (%v)", err)
	}
}

// streamWithStats is a stream of two INT64 rows whose last message carries
// statistics.
func streamWithStats(t *testing.T) (*fakeStream, *spannerpb.ResultSetMetadata, *spannerpb.ResultSetStats) {
	m := md(fld("N", tInt64))
	stats := &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 2}}
	return newStream(t,
		prs(&spannerpb.PartialResultSet{Metadata: m, Values: vals(str("1"))}),
		prs(&spannerpb.PartialResultSet{Values: vals(str("2")), Stats: stats}),
	), m, stats
}

// TestBuffered: Buffer reads a result to its end and closes it; the
// buffered rows keep its rows, column types, metadata and statistics.
func TestBuffered(t *testing.T) {
	s, m, stats := streamWithStats(t)
	r, err := rows.Open(s, rows.Options{KeepMetadata: true})
	if err != nil {
		t.Fatal(err)
	}
	scanType := r.ColumnTypeScanType(0)
	b, err := rows.Buffer(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, closes, _ := s.stats(); closes == 0 {
		t.Error("Buffer left the stream open")
	}
	if b.ColumnTypeScanType(0) != scanType || b.ColumnTypeDatabaseTypeName(0) != "INT64" {
		t.Errorf("column type %v %q", b.ColumnTypeScanType(0), b.ColumnTypeDatabaseTypeName(0))
	}
	if nullable, ok := b.ColumnTypeNullable(0); !nullable || !ok {
		t.Error("column not nullable")
	}
	gotMD, gotStats := resultSets(t, rows.WithResultSets(b, true, true))
	if !proto.Equal(gotMD, m) || !proto.Equal(gotStats, stats) {
		t.Errorf("metadata %v, stats %v; want %v, %v", gotMD, gotStats, m, stats)
	}
}

// resultSets reads the three result sets of WithResultSets(r, true, true):
// the metadata, the rows (1 and 2), the statistics.
func resultSets(t *testing.T, w driver.Rows) (*spannerpb.ResultSetMetadata, *spannerpb.ResultSetStats) {
	t.Helper()
	next := w.(driver.RowsNextResultSet)
	scan := w.(driver.RowsColumnTypeScanType)
	if !reflect.DeepEqual(w.Columns(), []string{"metadata"}) || scan.ColumnTypeScanType(0) != reflect.TypeFor[*spannerpb.ResultSetMetadata]() {
		t.Fatalf("first result set: %v", w.Columns())
	}
	got := readRows(t, w)
	if len(got) != 1 {
		t.Fatalf("metadata result set: %d rows", len(got))
	}
	gotMD := got[0][0].(*spannerpb.ResultSetMetadata)
	if !next.HasNextResultSet() || next.NextResultSet() != nil {
		t.Fatal("no rows after the metadata")
	}
	if got := readRows(t, w); len(got) != 2 {
		t.Fatalf("rows: %v", got)
	}
	if !next.HasNextResultSet() || next.NextResultSet() != nil {
		t.Fatal("no statistics after the rows")
	}
	if !reflect.DeepEqual(w.Columns(), []string{"stats"}) || scan.ColumnTypeScanType(0) != reflect.TypeFor[*spannerpb.ResultSetStats]() {
		t.Fatalf("last result set: %v", w.Columns())
	}
	got = readRows(t, w)
	if len(got) != 1 {
		t.Fatalf("stats result set: %d rows", len(got))
	}
	if next.HasNextResultSet() || next.NextResultSet() != io.EOF {
		t.Error("a result set after the statistics")
	}
	return gotMD, got[0][0].(*spannerpb.ResultSetStats)
}

// TestResultSetsStatsAfterUnreadRows: leaving the rows early reads the
// rest of them, since the statistics come at the end of the stream.
func TestResultSetsStatsAfterUnreadRows(t *testing.T) {
	s, _, stats := streamWithStats(t)
	r, err := rows.Open(s, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := rows.WithResultSets(r, false, true)
	if !reflect.DeepEqual(w.Columns(), []string{"N"}) {
		t.Fatalf("columns %v", w.Columns())
	}
	if err := w.(driver.RowsNextResultSet).NextResultSet(); err != nil {
		t.Fatal(err)
	}
	got := readRows(t, w)
	if len(got) != 1 || !proto.Equal(got[0][0].(*spannerpb.ResultSetStats), stats) {
		t.Errorf("stats %v, want %v", got, stats)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestResultSetsOfClientResult: a result made on the client has a row type
// of its column names and empty statistics.
func TestResultSetsOfClientResult(t *testing.T) {
	w := rows.WithResultSets(rows.NewList([]string{"A"}), true, true)
	var out []driver.Value
	for {
		got := readRows(t, w)
		if len(got) == 1 {
			out = append(out, got[0][0])
		}
		if err := w.(driver.RowsNextResultSet).NextResultSet(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	want := []driver.Value{
		&spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{Name: "A"}}}},
		&spannerpb.ResultSetStats{},
	}
	if len(out) != 2 || !proto.Equal(out[0].(proto.Message), want[0].(proto.Message)) || !proto.Equal(out[1].(proto.Message), want[1].(proto.Message)) {
		t.Errorf("result sets %v, want %v", out, want)
	}
}
