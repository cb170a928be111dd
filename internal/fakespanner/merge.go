package fakespanner

import (
	"errors"
	"fmt"
	"slices"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// Merge reassembles a ResultSet from a stream of PartialResultSets: it takes
// the metadata of the first message, concatenates all values, merges chunked
// values (strings are concatenated; lists append, merging a trailing string
// or list element with the next list's first element), splits rows by the
// column count, and keeps the last stats and the precommit token with the
// highest seq_num. It does not modify msgs. The fake server uses it to
// answer unary ExecuteSql for a Result given only as Messages; tests can use
// it to compute what a stream carries.
func Merge(msgs []*spannerpb.PartialResultSet) (*spannerpb.ResultSet, error) {
	if len(msgs) == 0 {
		return nil, errors.New("fakespanner: Merge of an empty stream")
	}
	rs := &spannerpb.ResultSet{Metadata: msgs[0].GetMetadata()}
	var vals []*structpb.Value
	chunked := false
	for i, m := range msgs {
		if i > 0 && m.GetMetadata() != nil && rs.Metadata == nil {
			rs.Metadata = m.GetMetadata()
		}
		mv := m.GetValues()
		if chunked {
			if len(mv) == 0 {
				return nil, fmt.Errorf("fakespanner: message %d has no value to continue the chunked value of message %d", i, i-1)
			}
			merged, err := mergeValues(vals[len(vals)-1], mv[0])
			if err != nil {
				return nil, fmt.Errorf("fakespanner: merging message %d into message %d: %w", i, i-1, err)
			}
			vals[len(vals)-1] = merged
			mv = mv[1:]
		}
		vals = append(vals, mv...)
		chunked = m.GetChunkedValue()
		if chunked && len(m.GetValues()) == 0 {
			return nil, fmt.Errorf("fakespanner: message %d sets chunked_value without values", i)
		}
		if m.GetStats() != nil {
			rs.Stats = m.GetStats()
		}
		if pt := m.GetPrecommitToken(); pt != nil && (rs.PrecommitToken == nil || pt.GetSeqNum() > rs.PrecommitToken.GetSeqNum()) {
			rs.PrecommitToken = pt
		}
		if m.GetCacheUpdate() != nil {
			rs.CacheUpdate = m.GetCacheUpdate()
		}
	}
	if chunked {
		return nil, errors.New("fakespanner: the final message sets chunked_value")
	}
	ncols := len(rs.GetMetadata().GetRowType().GetFields())
	if len(vals) > 0 && ncols == 0 {
		return nil, fmt.Errorf("fakespanner: %d values but no columns", len(vals))
	}
	if ncols > 0 && len(vals)%ncols != 0 {
		return nil, fmt.Errorf("fakespanner: %d values do not fill rows of %d columns", len(vals), ncols)
	}
	for i := 0; i < len(vals); i += ncols {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: vals[i : i+ncols : i+ncols]})
	}
	return rs, nil
}

// mergeValues merges chunk b into a, returning a new value; a and b are not
// modified.
func mergeValues(a, b *structpb.Value) (*structpb.Value, error) {
	switch ak := a.GetKind().(type) {
	case *structpb.Value_StringValue:
		bk, ok := b.GetKind().(*structpb.Value_StringValue)
		if !ok {
			return nil, fmt.Errorf("cannot merge a string with %T", b.GetKind())
		}
		return strValue(ak.StringValue + bk.StringValue), nil
	case *structpb.Value_ListValue:
		bk, ok := b.GetKind().(*structpb.Value_ListValue)
		if !ok {
			return nil, fmt.Errorf("cannot merge a list with %T", b.GetKind())
		}
		av, bv := ak.ListValue.GetValues(), bk.ListValue.GetValues()
		out := slices.Clip(slices.Clone(av))
		if len(av) > 0 && len(bv) > 0 && mergeable(av[len(av)-1]) {
			m, err := mergeValues(av[len(av)-1], bv[0])
			if err != nil {
				return nil, err
			}
			out[len(out)-1] = m
			bv = bv[1:]
		}
		return listValue(append(out, bv...)), nil
	default:
		return nil, fmt.Errorf("cannot merge a chunk of kind %T", a.GetKind())
	}
}
