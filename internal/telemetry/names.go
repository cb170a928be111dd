package telemetry

import "go.opentelemetry.io/otel/attribute"

// ScopeName is the instrumentation scope of the driver's tracer and meter:
// the module that makes the spans and measurements (the official client
// uses its own package path, cloud.google.com/go/spanner).
const ScopeName = "github.com/spannerfast/spannerfast"

// SpanNamePrefix starts every span name. Span names are the official
// client's (cloud.google.com/go/spanner.Query, ...), which go-sql-spanner's
// users already see in their tracing backend, so that dashboards and
// alerts keyed on them keep working after the switch.
const SpanNamePrefix = "cloud.google.com/go/spanner."

// Attribute keys. The first group follows OpenTelemetry's semantic
// conventions for database clients; the second is Spanner's own.
const (
	KeyDBSystemName    = attribute.Key("db.system.name")
	KeyDBNamespace     = attribute.Key("db.namespace")
	KeyDBOperationName = attribute.Key("db.operation.name")
	KeyDBQueryText     = attribute.Key("db.query.text")
	KeyDBReturnedRows  = attribute.Key("db.response.returned_rows")
	KeyDBStatusCode    = attribute.Key("db.response.status_code")
	KeyDBBatchSize     = attribute.Key("db.operation.batch.size")
	KeyErrorType       = attribute.Key("error.type")
	KeyServerAddress   = attribute.Key("server.address")
	KeyServerPort      = attribute.Key("server.port")
	KeyRPCGRPCStatus   = attribute.Key("rpc.grpc.status_code")

	KeyRowsAffected    = attribute.Key("spanner.rows_affected") // DML: rows the statement changed
	KeyRequestTag      = attribute.Key("spanner.request_tag")
	KeyTransactionTag  = attribute.Key("spanner.transaction_tag")
	KeyReadTimestamp   = attribute.Key("spanner.read_timestamp")
	KeyCommitTimestamp = attribute.Key("spanner.commit_timestamp")
	KeyTransactionEnd  = attribute.Key("spanner.transaction.end") // how a transaction ended: commit, rollback
	KeyMutationCount   = attribute.Key("spanner.mutation_count")  // mutations a commit or Apply writes
	KeyAttempt         = attribute.Key("spanner.attempt")         // for span events: 1 for the first attempt
	KeyDDLOperation    = attribute.Key("spanner.ddl.operation")   // a DDL long-running operation's name
)

// SystemName is db.system.name for Spanner in the semantic conventions.
const SystemName = "gcp.spanner"

// MetricOperationDuration is the histogram of every operation's duration
// in seconds (OpenTelemetry's database client convention).
const MetricOperationDuration = "db.client.operation.duration"

// durationBuckets are the semantic conventions' advised bucket boundaries
// of db.client.operation.duration, in seconds.
var durationBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10}

// Kind is what an operation is: its db.operation.name and its span name.
type Kind uint8

// The operations an application's work becomes. Their names are the
// official client's.
const (
	Query                Kind = iota // a query, until its rows are closed or drained
	Update                           // one DML statement
	BatchUpdate                      // DML statements sent as one batch
	PartitionedUpdate                // partitioned DML, its runs after aborts included
	ReadWriteTransaction             // a read/write transaction from begin to commit or rollback
	ReadOnlyTransaction              // a read-only transaction from begin to its end
	BeginTransaction                 // an explicit BeginTransaction call
	Commit                           // the commit of a transaction
	Rollback                         // the rollback of a transaction
	Apply                            // mutations written outside a transaction
	UpdateDatabaseDdl                // DDL statements and their long-running operation
	PartitionQuery                   // the partitioning of a query
	Partition                        // reading one partition of a partitioned query
	CreateSession                    // the creation of a session
	CreateDatabase                   // CREATE DATABASE and its long-running operation
	DropDatabase                     // DROP DATABASE
	kinds                            // count
)

var kindNames = [kinds]string{
	Query:                "Query",
	Update:               "Update",
	BatchUpdate:          "BatchUpdate",
	PartitionedUpdate:    "PartitionedUpdate",
	ReadWriteTransaction: "ReadWriteTransaction",
	ReadOnlyTransaction:  "ReadOnlyTransaction",
	BeginTransaction:     "BeginTransaction",
	Commit:               "Commit",
	Rollback:             "Rollback",
	Apply:                "Apply",
	UpdateDatabaseDdl:    "UpdateDatabaseDdl",
	PartitionQuery:       "PartitionQuery",
	Partition:            "Partition",
	CreateSession:        "CreateSession",
	CreateDatabase:       "CreateDatabase",
	DropDatabase:         "DropDatabase",
}

// spanNames and operationNames are built once so that no operation builds a
// string.
var spanNames, operationNames = func() (spans [kinds]string, ops [kinds]attribute.KeyValue) {
	for k, n := range kindNames {
		spans[k] = SpanNamePrefix + n
		ops[k] = KeyDBOperationName.String(n)
	}
	return spans, ops
}()

// String returns k's db.operation.name.
func (k Kind) String() string {
	if k >= kinds {
		return "Unknown"
	}
	return kindNames[k]
}

// SpanName returns the name of k's span.
func (k Kind) SpanName() string {
	if k >= kinds {
		return SpanNamePrefix + "Unknown"
	}
	return spanNames[k]
}
