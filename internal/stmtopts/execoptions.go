package stmtopts

import (
	"context"
	"errors"
	"strings"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
	"github.com/spannerfast/spannerfast/internal/partition"
)

// go-sql-spanner's per-statement options, with its names and types, so
// that code written for its Go API runs unchanged. An ExecOptions among a
// statement's arguments becomes a QueryOptions (CheckNamedValue), which
// applies to that statement only (Pending).

// DecodeOption is how a query's rows are decoded.
type DecodeOption int

const (
	// DecodeOptionNormal decodes into Go values (the default).
	DecodeOptionNormal DecodeOption = iota
	// DecodeOptionProto returns spanner.GenericColumnValue for every
	// column: its type and the value as Spanner sent it.
	DecodeOptionProto
)

// AutocommitDMLMode is how DML outside a transaction runs, in
// go-sql-spanner's numbering.
type AutocommitDMLMode int

const (
	// Unspecified keeps the connection's autocommit_dml_mode.
	Unspecified AutocommitDMLMode = iota
	// Transactional runs the statement in a read-write transaction.
	Transactional
	// PartitionedNonAtomic runs it as partitioned DML.
	PartitionedNonAtomic
)

func (m AutocommitDMLMode) String() string {
	switch m {
	case Unspecified:
		return "Unspecified"
	case Transactional:
		return "Transactional"
	case PartitionedNonAtomic:
		return "Partitioned_Non_Atomic"
	}
	return ""
}

// PartitionedQueryOptions are go-sql-spanner's options of partitioned
// queries (see QueryOptions.PartitionQuery and AutoPartition).
type PartitionedQueryOptions struct {
	AutoPartitionQuery bool
	MaxParallelism     int
	PartitionQuery     bool
	// PartitionOptions: MaxPartitions and PartitionBytes (a size hint
	// that Spanner may ignore) are sent.
	PartitionOptions spanner.PartitionOptions
	ExecutePartition ExecutePartition
}

// ExecutePartition runs partition Index of PartitionedQuery.
type ExecutePartition struct {
	PartitionedQuery *partition.PartitionedQuery
	Index            int
}

// ExecOptions is go-sql-spanner's per-statement argument. See
// docs/go-sql-spanner.md for what each field does here.
type ExecOptions struct {
	DecodeOption         DecodeOption
	DecodeToNativeArrays bool
	// TransactionOptions apply to the transaction the statement begins
	// (autocommit DML); inside a transaction they change nothing.
	TransactionOptions spanner.TransactionOptions
	QueryOptions       spanner.QueryOptions
	// TimestampBound is the bound of a query outside a transaction.
	TimestampBound          *spanner.TimestampBound
	PartitionedQueryOptions PartitionedQueryOptions
	AutocommitDMLMode       AutocommitDMLMode
	// ReturnResultSetMetadata adds a first result set before the rows: one
	// row, column "metadata", the *spannerpb.ResultSetMetadata
	// (sql.Rows.NextResultSet moves on to the rows).
	ReturnResultSetMetadata bool
	// ReturnResultSetStats adds a last result set after the rows: one row,
	// column "stats", the *spannerpb.ResultSetStats (row count of DML,
	// query plan and statistics with QueryOptions.Mode).
	ReturnResultSetStats bool
	// DirectExecuteQuery is what spannerfast always does: QueryContext
	// sends the query and reads its first response.
	DirectExecuteQuery bool
	// DirectExecuteContext, with DirectExecuteQuery (as in go-sql-spanner,
	// which ignores it otherwise), bounds QueryContext's wait for the
	// query's first response: when it ends first the query is cancelled
	// and QueryContext fails with its error (DeadlineExceeded or
	// Canceled). The rows stay bound to QueryContext's context.
	DirectExecuteContext context.Context
	// PropertyValues set connection properties for this statement only,
	// as SET would (same names, same values; a bad one fails the
	// statement before anything is sent).
	PropertyValues []PropertyValue
	// QueryMetadata, when not nil, is filled in by QueryContext (see
	// QueryMetadata).
	QueryMetadata *QueryMetadata
}

// Identifier is the name of a property, in parts (go-sql-spanner's
// parser.Identifier): one part for a property, two for an extension
// variable.
type Identifier struct {
	Parts []string
}

// String is the name as SET spells it.
func (i Identifier) String() string { return strings.Join(i.Parts, ".") }

// PropertyValue is a property and its value in SET's text form.
type PropertyValue struct {
	Identifier Identifier
	Value      string
}

// CreatePropertyValue returns the PropertyValue of property name.
func CreatePropertyValue(name, value string) PropertyValue {
	return PropertyValue{Identifier: Identifier{Parts: []string{name}}, Value: value}
}

// checkProperties refuses what SET would refuse, before the statement runs.
func checkProperties(vs []PropertyValue) error {
	scratch := connstate.New(&dsn.Config{}) // SET's checks on a state of its own
	for _, v := range vs {
		name := v.Identifier.String()
		if connstate.IsExtension(name) {
			return status.Errorf(codes.Unimplemented, "spannerfast: ExecOptions.PropertyValues: extension variable %s cannot be set for one statement; use SET", name)
		}
		if err := scratch.Set(name, v.Value); err != nil {
			return err
		}
	}
	return nil
}

// queryOptions converts o. Options spannerfast cannot honour and whose
// loss would change the result are refused, naming the field.
func (o *ExecOptions) queryOptions() (QueryOptions, error) {
	var q QueryOptions
	switch o.DecodeOption {
	case DecodeOptionNormal:
	case DecodeOptionProto:
		q.Proto = true
	default:
		return q, status.Errorf(codes.InvalidArgument, "spannerfast: ExecOptions.DecodeOption %d is not a known option", o.DecodeOption)
	}
	q.ReturnMetadata, q.ReturnStats = o.ReturnResultSetMetadata, o.ReturnResultSetStats
	if o.DirectExecuteQuery {
		q.DirectContext = o.DirectExecuteContext
	}
	q.Metadata = o.QueryMetadata
	if err := checkProperties(o.PropertyValues); err != nil {
		return q, err
	}
	if len(o.PropertyValues) > 0 {
		vs := append([]PropertyValue(nil), o.PropertyValues...)
		q.props = &vs
	}
	if o.DecodeToNativeArrays {
		q.NativeArrays = &o.DecodeToNativeArrays
	}
	if err := q.setQueryOptions(o.QueryOptions); err != nil {
		return q, err
	}
	txn, err := TxnOptionsOf(o.TransactionOptions)
	if err != nil {
		return q, err
	}
	txn.ExcludeFromStreams = txn.ExcludeFromStreams || o.QueryOptions.ExcludeTxnFromChangeStreams
	if txn != (TxnOptions{}) {
		q.Txn = &txn
	}
	if o.TimestampBound != nil {
		b, err := StalenessOf(*o.TimestampBound)
		if err != nil {
			return q, err
		}
		q.Staleness = &b
	}
	switch o.AutocommitDMLMode {
	case Unspecified:
	case Transactional:
		q.AutocommitDMLMode = dsn.AutocommitTransactional
	case PartitionedNonAtomic:
		q.AutocommitDMLMode = dsn.AutocommitPartitionedNonAtomic
	default:
		return q, status.Errorf(codes.InvalidArgument, "spannerfast: ExecOptions.AutocommitDMLMode %d is not a known mode", o.AutocommitDMLMode)
	}
	return q, q.setPartitioned(o.PartitionedQueryOptions)
}

// setQueryOptions takes the official client's QueryOptions.
func (q *QueryOptions) setQueryOptions(o spanner.QueryOptions) error {
	if o.Mode != nil {
		if _, ok := spannerpb.ExecuteSqlRequest_QueryMode_name[int32(*o.Mode)]; !ok {
			return status.Errorf(codes.InvalidArgument, "spannerfast: ExecOptions.QueryOptions.Mode %d is not a known mode", *o.Mode)
		}
		if *o.Mode != spannerpb.ExecuteSqlRequest_NORMAL {
			q.Mode = o.Mode
		}
	}
	q.ClientContext = o.ClientContext
	p, err := priorityOf("QueryOptions.Priority", o.Priority)
	if err != nil {
		return err
	}
	q.Priority, q.RequestTag = p, o.RequestTag
	q.Optimizer = o.Options
	if o.DataBoostEnabled {
		q.DataBoost = &o.DataBoostEnabled
	}
	q.DirectedRead = o.DirectedReadOptions
	q.LastStatement = o.LastStatement
	return nil
}

// setPartitioned takes go-sql-spanner's PartitionedQueryOptions.
func (q *QueryOptions) setPartitioned(p PartitionedQueryOptions) error {
	q.PartitionQuery = p.PartitionQuery
	if p.AutoPartitionQuery {
		q.AutoPartition = &p.AutoPartitionQuery
	}
	q.MaxParallelism = p.MaxParallelism
	q.MaxPartitions = p.PartitionOptions.MaxPartitions
	q.PartitionBytes = p.PartitionOptions.PartitionBytes
	if pq := p.ExecutePartition.PartitionedQuery; pq != nil {
		i := p.ExecutePartition.Index
		if i < 0 || i >= len(pq.Partitions) {
			return status.Errorf(codes.InvalidArgument, "spannerfast: ExecutePartition.Index %d out of range [0, %d)", i, len(pq.Partitions))
		}
		q.Partition = pq.Partitions[i]
	}
	return nil
}

func unsupported(format string, args ...any) error {
	return status.Errorf(codes.Unimplemented, "spannerfast: ExecOptions."+format+" is not supported", args...)
}

// Overlays reports whether q changes connection settings for its statement.
func (q *QueryOptions) Overlays() bool {
	return q.RequestTag != "" || q.Priority != "" || q.Optimizer != nil || q.Staleness != nil ||
		q.AutocommitDMLMode != "" || q.NativeArrays != nil || q.Txn != nil || q.props != nil
}

// SetOn lays the statement's settings over the connection's (see
// connstate.Store.Overlay).
func (q *QueryOptions) SetOn(cfg *dsn.Config) {
	if q.props != nil {
		for _, v := range *q.props {
			// Checked when the options were taken (checkProperties).
			_ = cfg.SetVariable(v.Identifier.String(), v.Value)
		}
	}
	if q.RequestTag != "" {
		cfg.StatementTag = q.RequestTag
	}
	if q.Priority != "" {
		cfg.RPCPriority = q.Priority
	}
	if v := q.Optimizer.GetOptimizerVersion(); v != "" {
		cfg.OptimizerVersion = v
	}
	if p := q.Optimizer.GetOptimizerStatisticsPackage(); p != "" {
		cfg.OptimizerStatisticsPackage = p
	}
	if q.Staleness != nil {
		cfg.ReadOnlyStaleness = *q.Staleness
	}
	if q.AutocommitDMLMode != "" {
		cfg.AutocommitDMLMode = q.AutocommitDMLMode
	}
	if q.NativeArrays != nil {
		cfg.DecodeToNativeArrays = *q.NativeArrays
	}
	if q.Txn != nil {
		q.Txn.Apply(cfg)
	}
}

// ChangesRequest reports whether q has request fields for ApplyTo to add.
func (q *QueryOptions) ChangesRequest() bool {
	return q.DirectedRead != nil || q.LastStatement || q.Mode != nil || q.ClientContext != nil || q.DirectContext != nil
}

// ApplyTo adds the request fields of the running statement's options; q
// may be nil (a statement without them).
func (q *QueryOptions) ApplyTo(req *spannerpb.ExecuteSqlRequest) {
	if q == nil {
		return
	}
	if q.DirectedRead != nil {
		req.DirectedReadOptions = q.DirectedRead
	}
	req.LastStatement = req.LastStatement || q.LastStatement
	if q.Mode != nil {
		req.QueryMode = *q.Mode
	}
}

// StalenessOf converts the official client's TimestampBound, whose fields
// are unexported, through its String form ("(strong)",
// "(exactStaleness: 10s)", "(readTimestamp: 2006-01-02 15:04:05.999999999
// -0700 MST)").
func StalenessOf(tb spanner.TimestampBound) (dsn.Staleness, error) {
	text := tb.String()
	kind, value, _ := strings.Cut(strings.Trim(text, "()"), ": ")
	bad := func(err error) (dsn.Staleness, error) {
		return dsn.Staleness{}, status.Errorf(codes.InvalidArgument, "spannerfast: timestamp bound %s: %v", text, err)
	}
	switch kind {
	case "strong":
		return dsn.StrongRead(), nil
	case "exactStaleness", "maxStaleness":
		d, err := time.ParseDuration(value)
		if err != nil {
			return bad(err)
		}
		if kind == "maxStaleness" {
			return dsn.MaxStaleness(d), nil
		}
		return dsn.ExactStaleness(d), nil
	case "readTimestamp", "minReadTimestamp":
		// Date, clock and offset; the zone name and a monotonic
		// reading (m=...) that may follow add nothing.
		f := strings.Fields(value)
		if len(f) < 3 {
			return bad(errNoOffset)
		}
		t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700", strings.Join(f[:3], " "))
		if err != nil {
			return bad(err)
		}
		if kind == "minReadTimestamp" {
			return dsn.MinReadTimestamp(t), nil
		}
		return dsn.ReadTimestamp(t), nil
	}
	return dsn.Staleness{}, status.Errorf(codes.InvalidArgument, "spannerfast: unknown timestamp bound %s", text)
}

var errNoOffset = errors.New("no date, clock and UTC offset")

// TimestampBoundOf is the official client's form of s (StalenessOf's
// inverse).
func TimestampBoundOf(s dsn.Staleness) spanner.TimestampBound {
	switch s.Kind {
	case dsn.StalenessExact:
		return spanner.ExactStaleness(s.Duration)
	case dsn.StalenessMax:
		return spanner.MaxStaleness(s.Duration)
	case dsn.StalenessReadTimestamp:
		return spanner.ReadTimestamp(s.Timestamp)
	case dsn.StalenessMinReadTimestamp:
		return spanner.MinReadTimestamp(s.Timestamp)
	}
	return spanner.StrongRead()
}
