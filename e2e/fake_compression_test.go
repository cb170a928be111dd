package e2e

import (
	"database/sql"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// countingListener counts the bytes its connections read and write.
type countingListener struct {
	net.Listener
	in, out atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.l.in.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.l.out.Add(int64(n))
	return n, err
}

// TestFakeCompressionGzip: with compression=gzip the requests go
// gzip-compressed (the long statement costs the server far fewer bytes
// read), the client asks for compressed responses (x-response-encoding:
// gzip) and gets them (far fewer bytes written), and the rows are the
// same as without compression; without it nothing is compressed.
func TestFakeCompressionGzip(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingListener{Listener: lis}
	s := serveFake(t, fakespanner.New(), counted)

	query := "SELECT s FROM t WHERE s != '" + strings.Repeat("x", 64<<10) + "'"
	value := strings.Repeat("compressible ", 1000)
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{
		Fields: []*spannerpb.StructType_Field{{Name: "s", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}}},
	}}}
	for range 20 {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue(value)}})
	}
	s.AddResult(query, &fakespanner.Result{ResultSet: rs})

	run := func(compression string) (in, out int64) {
		db, err := sql.Open("spannerfast", fakeDSN(s, "compression="+compression, "num_channels=1"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Ping(); err != nil {
			t.Fatal(err)
		}
		in0, out0 := counted.in.Load(), counted.out.Load()
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var got string
			if err := rows.Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != value {
				t.Fatalf("%s: row %d differs", compression, n)
			}
			n++
		}
		if err := rows.Err(); err != nil || n != 20 {
			t.Fatalf("%s: %d rows, %v", compression, n, err)
		}
		rows.Close()
		return counted.in.Load() - in0, counted.out.Load() - out0
	}

	plainIn, plainOut := run("none")
	last := s.RequestsFor("ExecuteStreamingSql")
	if enc := last[len(last)-1].Header.Get("x-response-encoding"); len(enc) != 0 {
		t.Errorf("without compression x-response-encoding = %q", enc)
	}
	gzIn, gzOut := run("gzip")
	last = s.RequestsFor("ExecuteStreamingSql")
	if enc := last[len(last)-1].Header.Get("x-response-encoding"); len(enc) != 1 || enc[0] != "gzip" {
		t.Errorf("with gzip x-response-encoding = %q", enc)
	}
	t.Logf("request bytes %d -> %d, response bytes %d -> %d", plainIn, gzIn, plainOut, gzOut)
	if plainIn < 64<<10 || gzIn*10 > plainIn {
		t.Errorf("request bytes: %d without compression, %d with gzip; want gzip ten times smaller", plainIn, gzIn)
	}
	if gzOut*10 > plainOut {
		t.Errorf("response bytes: %d without compression, %d with gzip; want gzip ten times smaller", plainOut, gzOut)
	}
}
