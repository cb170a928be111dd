package e2e

import (
	"context"
	"database/sql"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

const pointQuery = "SELECT SingerId, FirstName, LastName, Rating, Active FROM Singers WHERE SingerId = 1"

// pointResult is one five-column row, the shape of the bench tool's point
// workload.
func pointResult() *fakespanner.Result {
	field := func(name string, code spannerpb.TypeCode) *spannerpb.StructType_Field {
		return &spannerpb.StructType_Field{Name: name, Type: &spannerpb.Type{Code: code}}
	}
	return &fakespanner.Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			field("SingerId", spannerpb.TypeCode_INT64), field("FirstName", spannerpb.TypeCode_STRING),
			field("LastName", spannerpb.TypeCode_STRING), field("Rating", spannerpb.TypeCode_FLOAT64),
			field("Active", spannerpb.TypeCode_BOOL),
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{
			structpb.NewStringValue("1"), structpb.NewStringValue("Alice"), structpb.NewStringValue("Smith"),
			structpb.NewNumberValue(4.5), structpb.NewBoolValue(true),
		}}},
	}}
}

// BenchmarkPointQuery runs a one-row query, read to the end as the bench
// tool's point workload does, through database/sql against the
// in-process fake server. allocs/op include the server's work; profile with
// -memprofile and look at the client's stacks (conn, rows, grpc's client
// transport).
func BenchmarkPointQuery(b *testing.B) { benchPointQuery(b) }

// benchPointQuery runs pointQuery on a connection to a fake server for b.
func benchPointQuery(b *testing.B) {
	ctx := context.Background()
	c := pointConn(b)
	var dest pointRow
	b.ReportAllocs()
	for b.Loop() {
		dest.read(b, ctx, c)
	}
}

// pointConn is a connection to a fake server that answers pointQuery and
// records nothing (so that its allocations stay flat).
func pointConn(b *testing.B) *sql.Conn {
	s := fakespanner.Start(b)
	s.SetRecording(false)
	s.AddResult(pointQuery, pointResult())
	c, err := openFake(b, s).Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// pointRow holds the scan targets of pointQuery, made once so that reading
// a row allocates nothing of the caller's.
type pointRow struct {
	id          int64
	first, last string
	rating      float64
	active      bool
}

// read runs pointQuery on c (a connection or a transaction) and scans its
// row into p.
func (p *pointRow) read(tb testing.TB, ctx context.Context, c interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) {
	rows, err := c.QueryContext(ctx, pointQuery)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		if err := rows.Scan(&p.id, &p.first, &p.last, &p.rating, &p.active); err != nil {
			tb.Fatal(err)
		}
	}
	if err := rows.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkPointQueryInTxn runs pointQuery in a read-write transaction
// (begun inline by the query, then committed) and in a read-only one, so
// that allocations the transaction engine adds to a query show up.
func BenchmarkPointQueryInTxn(b *testing.B) {
	for _, ro := range []bool{false, true} {
		name := "ReadWrite"
		if ro {
			name = "ReadOnly"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			c := pointConn(b)
			var dest pointRow
			b.ReportAllocs()
			for b.Loop() {
				tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: ro})
				if err != nil {
					b.Fatal(err)
				}
				dest.read(b, ctx, tx)
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
