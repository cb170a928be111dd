package rows

import (
	"database/sql/driver"
	"io"
	"reflect"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// go-sql-spanner's ExecOptions.ReturnResultSetMetadata and
// ReturnResultSetStats: the statement's rows come with extra result sets,
// in its order and with its Go types. First, when asked for, one row in
// column "metadata" holding the *spannerpb.ResultSetMetadata; then the
// statement's own rows; last, when asked for, one row in column "stats"
// holding the *spannerpb.ResultSetStats (never nil: empty when Spanner
// sent none, as there). sql.Rows.NextResultSet moves from one to the next.
// Only statements run with these options get the wrapper; nothing here is
// on the path of any other query.
//
// The metadata and statistics come from the wrapped result: a *Rows keeps
// them; any other result gives them by implementing Encoded (wrappers of a
// *Rows, results buffered or merged from one), or is a result made on the
// client, whose metadata lists its column names.

const (
	setMetadata = iota
	setData
	setStats
	setDone
)

// resultSets wraps a statement's rows with the extra result sets.
type resultSets struct {
	data      driver.Rows
	withMeta  bool
	withStats bool
	set       int  // the result set being read
	sent      bool // its one row was returned (metadata, stats)
}

var (
	_ driver.Rows                           = (*resultSets)(nil)
	_ driver.RowsNextResultSet              = (*resultSets)(nil)
	_ driver.RowsColumnTypeScanType         = (*resultSets)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*resultSets)(nil)
)

// WithResultSets wraps r with the metadata result set before it (metadata)
// and the statistics result set after it (stats).
func WithResultSets(r driver.Rows, metadata, stats bool) driver.Rows {
	w := &resultSets{data: r, withMeta: metadata, withStats: stats}
	if !w.withMeta {
		w.set = setData
	}
	return w
}

func (w *resultSets) Columns() []string {
	switch w.set {
	case setMetadata:
		return []string{"metadata"}
	case setData:
		return w.data.Columns()
	case setStats:
		return []string{"stats"}
	}
	return []string{}
}

func (w *resultSets) Next(dest []driver.Value) error {
	switch w.set {
	case setData:
		return w.data.Next(dest)
	case setMetadata, setStats:
		if w.sent {
			return io.EOF
		}
		var v any
		var err error
		if w.set == setMetadata {
			v, err = metadataOf(w.data)
		} else {
			v, err = statsOf(w.data)
		}
		if err != nil {
			return err
		}
		w.sent = true
		dest[0] = v
		return nil
	}
	return io.EOF
}

func (w *resultSets) HasNextResultSet() bool {
	return w.set == setMetadata || (w.set == setData && w.withStats)
}

// NextResultSet moves on. Leaving the rows reads what is left of them: the
// statistics come at the end of the stream.
func (w *resultSets) NextResultSet() error {
	if !w.HasNextResultSet() {
		return io.EOF
	}
	if w.set == setData {
		if err := Drain(w.data); err != nil {
			return err
		}
	}
	w.set++
	w.sent = false
	return nil
}

func (w *resultSets) Close() error { return w.data.Close() }

var (
	typeMetadata = reflect.TypeFor[*spannerpb.ResultSetMetadata]()
	typeStats    = reflect.TypeFor[*spannerpb.ResultSetStats]()
	typeAny      = reflect.TypeFor[any]()
)

func (w *resultSets) ColumnTypeScanType(i int) reflect.Type {
	switch w.set {
	case setMetadata:
		return typeMetadata
	case setStats:
		return typeStats
	}
	if ct, ok := w.data.(driver.RowsColumnTypeScanType); ok {
		return ct.ColumnTypeScanType(i)
	}
	return typeAny
}

func (w *resultSets) ColumnTypeDatabaseTypeName(i int) string {
	if ct, ok := w.data.(driver.RowsColumnTypeDatabaseTypeName); ok && w.set == setData {
		return ct.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

// Drain reads r to its end.
func Drain(r driver.Rows) error {
	dest := make([]driver.Value, len(r.Columns()))
	for {
		if err := r.Next(dest); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// Encoded is a result that gives Spanner's encoded metadata and statistics
// although it is not a *Rows: a wrapper of one, or rows read from one or
// more. false means it has none to give: for the metadata, a row type is
// then made from the column names.
type Encoded interface {
	EncodedMetadata() ([]byte, bool)
	EncodedStats() ([]byte, bool)
}

// metadataOf returns the metadata of r as Spanner sent it; for a result
// made on the client, a row type from its columns.
func metadataOf(r driver.Rows) (*spannerpb.ResultSetMetadata, error) {
	md := new(spannerpb.ResultSetMetadata)
	if b, ok := encodedOf(r, true); ok {
		if err := proto.Unmarshal(b, md); err != nil {
			return nil, status.Errorf(codes.Internal, "spannerfast: result metadata does not decode: %v", err)
		}
		if md.RowType == nil {
			md.RowType = &spannerpb.StructType{}
		}
		return md, nil
	}
	md.RowType = &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{}}
	for _, name := range r.Columns() {
		md.RowType.Fields = append(md.RowType.Fields, &spannerpb.StructType_Field{Name: name})
	}
	return md, nil
}

// statsOf returns the statistics of r as Spanner sent them, empty when it
// sent none.
func statsOf(r driver.Rows) (*spannerpb.ResultSetStats, error) {
	st := new(spannerpb.ResultSetStats)
	if b, ok := encodedOf(r, false); ok && len(b) > 0 {
		if err := proto.Unmarshal(b, st); err != nil {
			return nil, status.Errorf(codes.Internal, "spannerfast: result statistics do not decode: %v", err)
		}
	}
	return st, nil
}

// encodedOf returns the encoded metadata (meta) or statistics of r, false
// for a result made on the client.
func encodedOf(r driver.Rows, meta bool) ([]byte, bool) {
	switch x := r.(type) {
	case *Rows:
		if meta {
			return x.Metadata(), true
		}
		return x.Stats(), true
	case Encoded:
		if meta {
			return x.EncodedMetadata()
		}
		return x.EncodedStats()
	}
	return nil, false
}
