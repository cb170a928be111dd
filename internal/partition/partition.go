package partition

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Partition is one part of a partitioned query: everything needed to read
// it, from this process or another (see MarshalBinary). It is immutable.
type Partition struct {
	req    *spannerpb.ExecuteSqlRequest // the request that reads it; shared, read only
	readTS time.Time
}

// ReadTimestamp is the read timestamp of the batch transaction the
// partition belongs to (zero if Spanner did not report one).
func (p *Partition) ReadTimestamp() time.Time { return p.readTS }

// GetPartitionToken returns a copy of the token Spanner gave the
// partition (the official client's spanner.Partition has the same
// method).
func (p *Partition) GetPartitionToken() []byte {
	return append([]byte(nil), p.req.GetPartitionToken()...)
}

// SQL is the text sent for the partition (positional parameters rewritten
// to @p1, @p2...).
func (p *Partition) SQL() string { return p.req.GetSql() }

// DataBoost reports whether the partition runs on Data Boost.
func (p *Partition) DataBoost() bool { return p.req.GetDataBoostEnabled() }

// Encoding of a partition, version 1:
//
//	bytes 0-3   "sfpt" (magic)
//	byte  4     1 (version)
//	bytes 5-12  read timestamp, Unix nanoseconds, big-endian int64 (0: none)
//	bytes 13-   google.spanner.v1.ExecuteSqlRequest, deterministic protobuf:
//	            session, transaction {id}, sql, params, param_types,
//	            partition_token, data_boost_enabled, query_options,
//	            request_options
//
// A later version gets a new version byte; decoders refuse versions they
// do not know. The session and transaction id inside are live server state:
// see "Lifetime" in docs/partitioned.md.
const (
	partitionMagic   = "sfpt"
	partitionVersion = 1
	partitionHeader  = len(partitionMagic) + 1 + 8
)

// MarshalBinary encodes the partition (see the encoding above).
func (p *Partition) MarshalBinary() ([]byte, error) {
	body, err := proto.MarshalOptions{Deterministic: true}.Marshal(p.req)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "spannerfast: encoding a partition: %v", err)
	}
	b := make([]byte, partitionHeader, partitionHeader+len(body))
	copy(b, partitionMagic)
	b[len(partitionMagic)] = partitionVersion
	var ns int64
	if !p.readTS.IsZero() {
		ns = p.readTS.UnixNano()
	}
	binary.BigEndian.PutUint64(b[len(partitionMagic)+1:], uint64(ns))
	return append(b, body...), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded. Errors are
// InvalidArgument and say what is wrong.
func (p *Partition) UnmarshalBinary(b []byte) error {
	if len(b) < partitionHeader || string(b[:len(partitionMagic)]) != partitionMagic {
		return status.Error(codes.InvalidArgument, "spannerfast: not a spannerfast partition (bad header)")
	}
	if v := b[len(partitionMagic)]; v != partitionVersion {
		return status.Errorf(codes.InvalidArgument, "spannerfast: partition encoding version %d is not supported (want %d)", v, partitionVersion)
	}
	req := &spannerpb.ExecuteSqlRequest{}
	if err := proto.Unmarshal(b[partitionHeader:], req); err != nil {
		return status.Errorf(codes.InvalidArgument, "spannerfast: partition does not decode: %v", err)
	}
	switch {
	case req.GetSession() == "":
		return status.Error(codes.InvalidArgument, "spannerfast: partition has no session")
	case len(req.GetTransaction().GetId()) == 0:
		return status.Error(codes.InvalidArgument, "spannerfast: partition has no transaction id")
	case len(req.GetPartitionToken()) == 0:
		return status.Error(codes.InvalidArgument, "spannerfast: partition has no partition token")
	}
	var readTS time.Time
	if ns := int64(binary.BigEndian.Uint64(b[len(partitionMagic)+1:])); ns != 0 {
		readTS = time.Unix(0, ns).UTC()
	}
	*p = Partition{req: req, readTS: readTS}
	return nil
}

// ID is the partition's encoding in unpadded URL-safe base64: the text
// PARTITION returns and RUN PARTITION '<id>' takes.
func (p *Partition) ID() (string, error) {
	b, err := p.MarshalBinary()
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// New returns the partition that req reads (req is shared from then on and
// must not change), of a batch transaction that reads at readTS.
func New(req *spannerpb.ExecuteSqlRequest, readTS time.Time) *Partition {
	return &Partition{req: req, readTS: readTS}
}

// Request returns the request that reads p: shared, read only. A function,
// not a method: the request is not part of the public type.
func Request(p *Partition) *spannerpb.ExecuteSqlRequest { return p.req }

// ParsePartitionID decodes a partition id (Partition.ID).
func ParsePartitionID(id string) (*Partition, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(id, "="))
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: partition id is not URL-safe base64: %v", err)
	}
	p := &Partition{}
	if err := p.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return p, nil
}

// PartitionedQuery is a query partitioned in a batch read-only transaction
// (QueryOptions.PartitionQuery). Scan the one row of that query into it.
type PartitionedQuery struct {
	SQL           string // the statement as sent (`?` rewritten to @p1, @p2...)
	ReadTimestamp time.Time
	Partitions    []*Partition
}

// Scan takes the *PartitionedQuery of a PartitionQuery result.
func (pq *PartitionedQuery) Scan(src any) error {
	v, ok := src.(*PartitionedQuery)
	if !ok {
		return status.Errorf(codes.InvalidArgument, "spannerfast: cannot scan %T into a PartitionedQuery", src)
	}
	*pq = *v
	return nil
}

// Queryer runs queries: *sql.DB, *sql.Conn and *sql.Tx are Queryers.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Execute reads partition index through db (any spannerfast *sql.DB,
// *sql.Conn or *sql.Tx on the same database, in this process or another).
func (pq *PartitionedQuery) Execute(ctx context.Context, index int, db Queryer) (*sql.Rows, error) {
	if index < 0 || index >= len(pq.Partitions) {
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: partition index %d out of range [0, %d)", index, len(pq.Partitions))
	}
	return db.QueryContext(ctx, pq.SQL, Read{Partition: pq.Partitions[index]})
}

// Read is the statement argument Execute passes: read Partition instead of
// running the query. The connection takes it as it takes a QueryOptions
// with that Partition, which this package cannot know.
type Read struct{ Partition *Partition }
