package mutationpb

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
)

// FuzzMatchesOfficialClient builds mutations of any kind from any mix of
// the values in values() (as column values, key parts, payloads), converts
// them, and has the official client send the same mutation: both must
// accept it and agree on the protos, or both refuse it, for the first bad
// value in the client's order (the error's cause is the client's message).
func FuzzMatchesOfficialClient(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 2, 3}, {1, 10, 20}, {2}, {3, 200, 201}, {4, 5, 6}, {5, 7, 8}, {6, 9},
		{0, 150, 151, 152}, {4, 140, 141}, {7, 0, 0, 0, 0, 0, 0, 0},
	} {
		f.Add(seed)
	}
	vals := values()
	o := startOfficial(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		var parts []any
		var names []string
		for i, c := range b[1:min(len(b), 7)] {
			v := vals[int(c)%len(vals)]
			parts = append(parts, v.v)
			names = append(names, fmt.Sprintf("C%d_%s", i, v.name))
		}
		var m *spanner.Mutation
		switch b[0] % 8 {
		case 0:
			m = spanner.Insert("T", names, parts)
		case 1:
			m = spanner.Update("T", names, parts)
		case 2:
			m = spanner.InsertOrUpdate("T", names, parts)
		case 3:
			m = spanner.Replace("T", names, parts)
		case 4:
			m = spanner.Delete("T", spanner.Key(parts))
		case 5:
			if len(parts) < 2 {
				return
			}
			m = spanner.Delete("T", spanner.KeySets(spanner.Key(parts[:1]), spanner.KeyRange{Start: spanner.Key(parts[1:]), End: spanner.Key(parts[:1]), Kind: spanner.KeyRangeKind(b[0] / 8 % 4)}))
		case 6:
			var payload any
			if len(parts) > 0 {
				payload, parts = parts[0], parts[1:]
			}
			m = spanner.Send("Q", spanner.Key(parts), payload)
		case 7:
			m = spanner.Ack("Q", spanner.Key(parts), spanner.WithIgnoreNotFound(b[0] > 128))
		}
		ms := []*spanner.Mutation{m}
		got, _, convErr := Convert(ms)
		want, _, clientErr := o.sent(t, "ApplyAtLeastOnce", ms)
		switch {
		case convErr == nil && clientErr == nil:
			equalMutations(t, fmt.Sprint(b), got, want)
		case convErr != nil && clientErr != nil:
			var e *Error
			if !errors.As(convErr, &e) {
				t.Fatalf("%v: Convert: %v, want an *Error", b, convErr)
			}
			var se *spanner.Error
			cause := e.Err.Error()
			if errors.As(e.Err, &se) {
				cause = se.Desc
			}
			client := clientErr.Error()
			if errors.As(clientErr, &se) {
				client = se.Desc
			}
			if !strings.Contains(client, cause) {
				t.Fatalf("%v: Convert's cause %q is not the client's error %v", b, cause, clientErr)
			}
		default:
			t.Fatalf("%v: Convert: %v; client: %v", b, convErr, clientErr)
		}
	})
}
