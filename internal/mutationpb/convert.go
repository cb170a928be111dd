package mutationpb

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// ClientModule is the official client whose Mutation values Convert reads.
// Every release from MinClientVersion on is supported; see the package doc.
const (
	ClientModule     = "cloud.google.com/go/spanner"
	MinClientVersion = "v1.96.2"
)

// Convert returns the wire form of ms, as the official client builds it for
// CommitRequest.mutations, and the mutation the client would send as
// BeginTransactionRequest.mutation_key on a multiplexed session (nil when ms
// is empty).
//
// A nil mutation or a value the client cannot encode gives an *Error
// (InvalidArgument) naming the mutation's index, table and column. A client
// release whose Mutation this package cannot read gives FailedPrecondition
// and no conversion. Protos of mutations made with spanner.WrapMutation are
// returned as given, not copied, as the client does.
func Convert(ms []*spanner.Mutation) (pbs []*spannerpb.Mutation, key *spannerpb.Mutation, err error) {
	l, err := theLayout()
	if err != nil {
		return nil, nil, err
	}
	pbs = make([]*spannerpb.Mutation, 0, len(ms))
	for i, m := range ms {
		if m == nil {
			// The client would dereference it and panic.
			return nil, nil, &Error{Index: i, Err: errNilMutation}
		}
		pb, err := l.convert(m)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Index = i
			}
			return nil, nil, err
		}
		pbs = append(pbs, pb)
	}
	if len(pbs) == 0 {
		return pbs, nil, nil
	}
	return pbs, selectKey(pbs), nil
}

// MutationKey picks the mutation_key for a BeginTransaction among already
// converted mutations, as the client does at commit; for buffers converted
// piecewise. It returns nil for no mutations.
func MutationKey(pbs []*spannerpb.Mutation) (*spannerpb.Mutation, error) {
	for i, pb := range pbs {
		if pb == nil {
			return nil, &Error{Index: i, Err: errNilMutation}
		}
	}
	return selectKey(pbs), nil
}

// selectKey is the client's choice of mutation_key: one of the non-insert
// mutations, uniformly at random, else the insert with the most rows (the
// last of equals).
func selectKey(pbs []*spannerpb.Mutation) *spannerpb.Mutation {
	maxRows, maxIdx := -1, -1
	nonInserts, picked := 0, -1
	for i, pb := range pbs {
		if ins := pb.GetInsert(); ins != nil {
			if n := len(ins.GetValues()); n >= maxRows {
				maxRows, maxIdx = n, i
			}
			continue
		}
		nonInserts++
		if rand.IntN(nonInserts) == 0 {
			picked = i
		}
	}
	switch {
	case picked >= 0:
		return pbs[picked]
	case maxIdx >= 0:
		return pbs[maxIdx]
	}
	return nil
}

// convert builds one mutation's proto. A failure is an *Error without its
// index (Convert sets it), or a layout error.
func (l *layout) convert(m *spanner.Mutation) (pb *spannerpb.Mutation, err error) {
	if w := l.wrappedOf(m); w != nil {
		return w, nil
	}
	if f := l.unknownSet(m); f != "" {
		return nil, layoutError("the mutation sets field %q, which this driver does not know", f)
	}
	k, op := l.kindOf(m)
	switch k {
	case kindInsert, kindUpdate, kindInsertOrUpdate, kindReplace:
		w, err := l.write(m)
		if err != nil {
			return nil, err
		}
		switch k {
		case kindInsert:
			return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: w}}, nil
		case kindUpdate:
			return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Update{Update: w}}, nil
		case kindInsertOrUpdate:
			return &spannerpb.Mutation{Operation: &spannerpb.Mutation_InsertOrUpdate{InsertOrUpdate: w}}, nil
		default:
			return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Replace{Replace: w}}, nil
		}
	case kindDelete:
		table := l.tableOf(m)
		var kp *spannerpb.KeySet
		if ks := l.keySetOf(m); ks != nil {
			if kp, err = l.keySetProto(ks); err != nil {
				return nil, partError(table, "key", err)
			}
		}
		return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: table, KeySet: kp}}}, nil
	case kindSend:
		queue := l.queueOf(m)
		key, _, err := encodeValues(l.keyOf(m), true)
		if err != nil {
			return nil, partError(queue, "key", err)
		}
		payload, err := encodeOne(l.payloadOf(m))
		if err != nil {
			return nil, partError(queue, "payload", err)
		}
		send := &spannerpb.Mutation_Send{Queue: queue, Key: key, Payload: payload}
		if t := l.deliverTimeOf(m); !t.IsZero() {
			send.DeliverTime = timestamppb.New(t)
		}
		return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Send_{Send: send}}, nil
	case kindAck:
		queue := l.queueOf(m)
		key, _, err := encodeValues(l.keyOf(m), true)
		if err != nil {
			return nil, partError(queue, "key", err)
		}
		return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Ack_{Ack: &spannerpb.Mutation_Ack{
			Queue: queue, Key: key, IgnoreNotFound: l.ignoreNotFoundOf(m),
		}}}, nil
	}
	return nil, &Error{Table: l.tableOf(m), Err: spanner.ToSpannerError(status.Errorf(codes.InvalidArgument, "Unknown op type: %d", op))}
}

// write builds the Write of an insert, update, insert-or-update or replace.
// Like the client it does not compare the numbers of columns and values.
func (l *layout) write(m *spanner.Mutation) (*spannerpb.Mutation_Write, error) {
	table, cols := l.tableOf(m), l.columnsOf(m)
	lv, err := EncodeRow(table, cols, l.valuesOf(m))
	if err != nil {
		return nil, err
	}
	return &spannerpb.Mutation_Write{Table: table, Columns: cols, Values: []*structpb.ListValue{lv}}, nil
}

// EncodeRow encodes the values of one row of a write to table (an insert,
// update, insert-or-update or replace of cols) as the client encodes a
// mutation's values: the client's list of mutation types, then its
// encoder. A value that fails gives an *Error (InvalidArgument) naming the
// table and column; its Index is 0 (callers that number rows set it). It
// is the conversion of Convert's writes, for callers that build a Write of
// many rows themselves (internal/bulkload).
func EncodeRow(table string, cols []string, vals []any) (*structpb.ListValue, error) {
	lv, bad, err := encodeValues(vals, true)
	if err != nil {
		e := &Error{Table: table, Err: err}
		if bad < len(cols) {
			e.Column = cols[bad]
		}
		return nil, e
	}
	return lv, nil
}

// partError places err in the key or payload of a mutation; a layout error
// is not the mutation's fault and stays as it is.
func partError(table, part string, err error) error {
	var le *LayoutError
	if errors.As(err, &le) {
		return err
	}
	return &Error{Table: table, Part: part, Err: err}
}

// keySetProto encodes a key set as the client does: a Key is one key, a
// KeyRange one range, AllKeys every key, and KeySets (or KeySetFromKeys)
// the union of its members, where a member of every key makes the whole.
// KeySet has an unexported method, so only the client can implement it: a
// type not listed here is one of a later release.
func (l *layout) keySetProto(ks spanner.KeySet) (*spannerpb.KeySet, error) {
	switch k := ks.(type) {
	case spanner.Key:
		kp, err := keyProto(k)
		if err != nil {
			return nil, err
		}
		return &spannerpb.KeySet{Keys: []*structpb.ListValue{kp}}, nil
	case spanner.KeyRange:
		rp, err := keyRangeProto(k)
		if err != nil {
			return nil, err
		}
		return &spannerpb.KeySet{Ranges: []*spannerpb.KeyRange{rp}}, nil
	}
	switch t := reflect.TypeOf(ks); t {
	case nil:
		return nil, fmt.Errorf("a member of the key set is nil")
	case l.allKeysType:
		return &spannerpb.KeySet{All: true}, nil
	case l.unionType:
		out := &spannerpb.KeySet{}
		for _, member := range reflect.ValueOf(ks).Convert(l.keySliceType).Interface().([]spanner.KeySet) {
			pb, err := l.keySetProto(member)
			if err != nil {
				return nil, err
			}
			if pb.All {
				return pb, nil
			}
			out.Keys = append(out.Keys, pb.Keys...)
			out.Ranges = append(out.Ranges, pb.Ranges...)
		}
		return out, nil
	default:
		return nil, layoutError("key set of type %v", t)
	}
}

func keyRangeProto(r spanner.KeyRange) (*spannerpb.KeyRange, error) {
	start, err := keyProto(r.Start)
	if err != nil {
		return nil, err
	}
	end, err := keyProto(r.End)
	if err != nil {
		return nil, err
	}
	pb := &spannerpb.KeyRange{}
	if r.Kind == spanner.ClosedClosed || r.Kind == spanner.ClosedOpen {
		pb.StartKeyType = &spannerpb.KeyRange_StartClosed{StartClosed: start}
	} else {
		pb.StartKeyType = &spannerpb.KeyRange_StartOpen{StartOpen: start}
	}
	if r.Kind == spanner.ClosedClosed || r.Kind == spanner.OpenClosed {
		pb.EndKeyType = &spannerpb.KeyRange_EndClosed{EndClosed: end}
	} else {
		pb.EndKeyType = &spannerpb.KeyRange_EndOpen{EndOpen: end}
	}
	return pb, nil
}
