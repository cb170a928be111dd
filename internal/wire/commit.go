package wire

import (
	"encoding/binary"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// The encoding of a CommitRequest's writes (insert, update,
// insert-or-update, replace), written field by field as for
// ExecuteSqlRequest: a bulk load's Commit carries hundreds of thousands of
// values, and proto.Marshal's reflective walk of each structpb.Value (a
// oneof, looked up by type in a map) was half the CPU of a load. The other
// fields of the request and the other mutations (delete, send, ack) go
// through proto. The bytes are what proto.Marshal writes, fields in
// its order (TestAppendCommitMatchesProto).

// AppendCommit appends the encoding of r to b.
func AppendCommit(b []byte, r *spannerpb.CommitRequest) ([]byte, error) {
	var err error
	b = appendString(b, 1, r.Session)
	for _, m := range r.Mutations {
		if b, err = appendMutation(b, m); err != nil {
			return nil, err
		}
	}
	rest := &spannerpb.CommitRequest{
		ReturnCommitStats: r.ReturnCommitStats,
		RequestOptions:    r.RequestOptions,
		MaxCommitDelay:    r.MaxCommitDelay,
		PrecommitToken:    r.PrecommitToken,
		RoutingHint:       r.RoutingHint,
	}
	if b, err = (proto.MarshalOptions{}).MarshalAppend(b, rest); err != nil {
		return nil, err
	}
	// proto.Marshal writes the transaction oneof after the other fields.
	if tx, ok := r.GetTransaction().(*spannerpb.CommitRequest_TransactionId); ok {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, tx.TransactionId)
	}
	if b, err = appendProto(b, 3, r.GetSingleUseTransaction()); err != nil {
		return nil, err
	}
	return append(b, r.ProtoReflect().GetUnknown()...), nil
}

// appendMutation appends m as field 4 of a CommitRequest.
func appendMutation(b []byte, m *spannerpb.Mutation) ([]byte, error) {
	num, w := writeOf(m)
	if w == nil || len(w.ProtoReflect().GetUnknown()) > 0 || len(m.ProtoReflect().GetUnknown()) > 0 {
		return appendProto(b, 4, m)
	}
	ws := sizeWrite(w)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(sizeMessage(num, ws)))
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(ws))
	b = appendString(b, 1, w.Table)
	for _, c := range w.Columns {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, c)
	}
	for _, row := range w.Values {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeList(row)))
		for _, e := range row.GetValues() {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(sizeValue(e)))
			b = appendValue(b, e)
		}
	}
	return b, nil
}

func sizeWrite(w *spannerpb.Mutation_Write) int {
	n := sizeString(1, w.Table)
	for _, c := range w.Columns {
		n += protowire.SizeTag(2) + protowire.SizeBytes(len(c))
	}
	for _, row := range w.Values {
		n += sizeMessage(3, sizeList(row))
	}
	return n
}

// ListSize is the encoded size of a ListValue (a row of a write), as
// proto.Size gives it.
func ListSize(l *structpb.ListValue) int { return sizeList(l) }

// commitCap is about the size of r's encoding: exact for the writes.
func commitCap(r *spannerpb.CommitRequest) int {
	n := 1 << 10
	for _, m := range r.Mutations {
		if _, w := writeOf(m); w != nil {
			n += sizeWrite(w) + 2*binary.MaxVarintLen64
		} else {
			n += proto.Size(m) + binary.MaxVarintLen64
		}
	}
	return n
}

// writeOf returns the write of an insert, update, insert-or-update or
// replace and its field number in Mutation, or nil.
func writeOf(m *spannerpb.Mutation) (protowire.Number, *spannerpb.Mutation_Write) {
	switch op := m.GetOperation().(type) {
	case *spannerpb.Mutation_Insert:
		return 1, op.Insert
	case *spannerpb.Mutation_Update:
		return 2, op.Update
	case *spannerpb.Mutation_InsertOrUpdate:
		return 3, op.InsertOrUpdate
	case *spannerpb.Mutation_Replace:
		return 4, op.Replace
	}
	return 0, nil
}
