package fakespanner

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"unicode/utf8"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// NoResumeTokens as SplitOptions.ResumeTokenEvery sends no resume tokens at
// all (like spannertest), which forces a client to buffer until the end.
const NoResumeTokens = -1

// SplitOptions controls how Split cuts a ResultSet into PartialResultSets.
// The zero value sends every value in one message, with a resume token and
// without the last flag.
type SplitOptions struct {
	// MaxValues caps the number of values per message (a piece of a
	// chunked value counts as one value). 0 means no cap.
	MaxValues int
	// MaxBytes caps the approximate encoded size of the values in a
	// message. Values that do not fit are chunked: strings at UTF-8
	// character boundaries, lists at element boundaries or inside large
	// elements. A message can exceed the cap by a few bytes of framing per
	// nesting level, or when a single number, bool, null or character does
	// not fit. 0 means no cap.
	MaxBytes int
	// Chunks are explicit chunk points.
	Chunks []Chunk
	// ResumeTokenEvery: 0 or 1 puts a resume token on every message; N > 1
	// on every Nth message (the Nth, 2Nth, ...); NoResumeTokens on none.
	// Tokens are ResumeToken(i) for message index i.
	ResumeTokenEvery int
	// Last sets the last flag on the final message.
	Last bool
	// SeparateMetadata sends the metadata in a first message of its own,
	// without values.
	SeparateMetadata bool
	// SeparateStats sends the stats (and precommit token) in a final
	// message of its own, without values.
	SeparateStats bool
	// Random adds random message breaks and random chunk points (in
	// strings, at list boundaries and inside nested lists), sometimes an
	// empty message between values, and randomly separates metadata and
	// stats (when those options are false), all derived from Seed.
	// MaxValues, MaxBytes and Chunks still apply on top.
	Random bool
	Seed   int64
}

// Chunk is an explicit chunk point: the value at Row, Column is cut so that
// its left part ends one message (with chunked_value set) and its right
// part starts the next.
//
// Path descends into list values (ARRAY elements, or STRUCT fields since a
// STRUCT travels as a list) before cutting; every element on the path must
// be a string_value or list_value. At is where the value reached is cut:
// a byte offset into a string_value (0 to len, at a UTF-8 character start)
// or an element index into a list_value (0 to len). Several Chunks on one
// value make it span several messages.
//
// Examples for the ARRAY<STRING> value ["ab", "cd", "ef"]: At 1 sends
// ["ab"] and then ["", "cd", "ef"] (a list whose last element is a string
// is always merged with the next list's first element, so the right part
// starts with an empty continuation); Path [2], At 1 sends
// ["ab", "cd", "e"] and then ["f"] (a chunk inside the last element).
type Chunk struct {
	Row, Column int
	Path        []int
	At          int
}

// ResumeToken is the token Split puts on message index i.
func ResumeToken(i int) []byte {
	return []byte("\x00fake-rt-" + strconv.Itoa(i))
}

// Split cuts rs into the PartialResultSets a streaming query would send, as
// directed by opts. Concatenating and merging the values of the returned
// messages (see Merge) gives back rs's rows exactly. Chunk points that do
// not fit rs are ignored (string offsets inside a UTF-8 character move back
// to its start); use SplitChecked to have them reported. The messages share
// sub-messages (metadata, stats and unsplit values) with rs, so neither may
// be modified afterwards. Split is deterministic for given inputs.
func Split(rs *spannerpb.ResultSet, opts SplitOptions) []*spannerpb.PartialResultSet {
	msgs, _ := split(rs, opts, false)
	return msgs
}

// SplitChecked is Split that reports bad input (a chunk point outside the
// result, inside a value that cannot be chunked, or not at a UTF-8
// character start; rows whose length differs from the column count)
// instead of ignoring it.
func SplitChecked(rs *spannerpb.ResultSet, opts SplitOptions) ([]*spannerpb.PartialResultSet, error) {
	return split(rs, opts, true)
}

// overhead approximates the framing bytes of one value or list level.
const overhead = 4

func valueSize(v *structpb.Value) int { return proto.Size(v) + overhead }

func mergeable(v *structpb.Value) bool {
	switch v.GetKind().(type) {
	case *structpb.Value_StringValue, *structpb.Value_ListValue:
		return true
	}
	return false
}

func strValue(s string) *structpb.Value {
	return &structpb.Value{Kind: &structpb.Value_StringValue{StringValue: s}}
}

func listValue(vs []*structpb.Value) *structpb.Value {
	return &structpb.Value{Kind: &structpb.Value_ListValue{ListValue: &structpb.ListValue{Values: vs}}}
}

// emptyLike is an empty string or list matching v's kind.
func emptyLike(v *structpb.Value) *structpb.Value {
	if _, ok := v.GetKind().(*structpb.Value_StringValue); ok {
		return strValue("")
	}
	return listValue(nil)
}

func runeStartAtOrBefore(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func split(rs *spannerpb.ResultSet, opts SplitOptions, strict bool) ([]*spannerpb.PartialResultSet, error) {
	if rs == nil {
		return nil, errors.New("fakespanner: Split of a nil ResultSet")
	}
	ncols := len(rs.GetMetadata().GetRowType().GetFields())
	var vals []*structpb.Value
	for i, row := range rs.GetRows() {
		if strict && len(row.GetValues()) != ncols {
			return nil, fmt.Errorf("fakespanner: row %d has %d values, the row type has %d columns", i, len(row.GetValues()), ncols)
		}
		vals = append(vals, row.GetValues()...)
	}

	cuts := map[int][][]int{}
	for _, c := range opts.Chunks {
		idx := c.Row*ncols + c.Column
		if c.Row < 0 || c.Column < 0 || c.Column >= ncols || idx >= len(vals) {
			if strict {
				return nil, fmt.Errorf("fakespanner: chunk at row %d column %d: no such value", c.Row, c.Column)
			}
			continue
		}
		p, err := checkCut(vals[idx], append(slices.Clone(c.Path), c.At), strict)
		if err != nil {
			if strict {
				return nil, fmt.Errorf("fakespanner: chunk at row %d column %d path %v at %d: %w", c.Row, c.Column, c.Path, c.At, err)
			}
			continue
		}
		cuts[idx] = append(cuts[idx], p)
	}

	var rng *rand.Rand
	pBreak, pCut, pEmpty := 0.0, 0.0, 0.0
	sepMeta, sepStats := opts.SeparateMetadata, opts.SeparateStats
	if opts.Random {
		rng = rand.New(rand.NewPCG(uint64(opts.Seed), 0x5eed))
		pBreak = []float64{0.02, 0.1, 0.3, 0.6, 0.9}[rng.IntN(5)]
		pCut = []float64{0, 0.1, 0.3, 0.7}[rng.IntN(4)]
		pEmpty = []float64{0, 0.05}[rng.IntN(2)]
		sepMeta = sepMeta || rng.IntN(4) == 0
		sepStats = sepStats || rng.IntN(4) == 0
	}

	type msg struct {
		vals    []*structpb.Value
		chunked bool
	}
	var out []msg
	var cur []*structpb.Value
	used := 0
	flush := func(chunked bool) {
		out = append(out, msg{vals: cur, chunked: chunked})
		cur, used = nil, 0
		if !chunked && rng != nil && rng.Float64() < pEmpty {
			out = append(out, msg{})
		}
	}
	for i, v := range vals {
		full := (opts.MaxValues > 0 && len(cur) >= opts.MaxValues) ||
			(opts.MaxBytes > 0 && used >= opts.MaxBytes) ||
			(rng != nil && len(cur) > 0 && rng.Float64() < pBreak)
		sz := valueSize(v)
		if !full && opts.MaxBytes > 0 && used > 0 && used+sz > opts.MaxBytes && (!mergeable(v) || sz <= opts.MaxBytes) {
			full = true // start the value in a new message instead of splitting it
		}
		if full && len(cur) > 0 {
			flush(false)
		}
		vc := cuts[i]
		if rng != nil && mergeable(v) && rng.Float64() < pCut {
			for n := 1 + rng.IntN(3); n > 0; n-- {
				vc = append(vc, randomCut(rng, v))
			}
		}
		if opts.MaxBytes > 0 && used+sz > opts.MaxBytes && mergeable(v) {
			a := autoCutter{max: opts.MaxBytes, fill: used, fresh: used == 0}
			a.walk(v, nil, 0)
			vc = append(vc, a.cuts...)
		}
		if len(vc) == 0 {
			cur = append(cur, v)
			used += sz
			continue
		}
		pieces := splitValue(v, sortCuts(vc))
		cur = append(cur, pieces[0])
		for _, p := range pieces[1:] {
			flush(true)
			cur = append(cur, p)
		}
		used = valueSize(pieces[len(pieces)-1])
	}
	if len(cur) > 0 || len(out) == 0 || out[len(out)-1].chunked {
		out = append(out, msg{vals: cur})
	}
	// Drop a trailing empty message added by the random mode.
	for len(out) > 1 && len(out[len(out)-1].vals) == 0 && !out[len(out)-2].chunked {
		out = out[:len(out)-1]
	}

	msgs := make([]*spannerpb.PartialResultSet, 0, len(out)+2)
	if sepMeta {
		msgs = append(msgs, &spannerpb.PartialResultSet{})
	}
	for _, m := range out {
		msgs = append(msgs, &spannerpb.PartialResultSet{Values: m.vals, ChunkedValue: m.chunked})
	}
	if sepStats && (rs.GetStats() != nil || rs.GetPrecommitToken() != nil) {
		msgs = append(msgs, &spannerpb.PartialResultSet{})
	}
	first, final := msgs[0], msgs[len(msgs)-1]
	first.Metadata = rs.GetMetadata()
	first.CacheUpdate = rs.GetCacheUpdate()
	final.Stats = rs.GetStats()
	final.PrecommitToken = rs.GetPrecommitToken()
	final.Last = opts.Last
	for i, m := range msgs {
		switch every := opts.ResumeTokenEvery; {
		case every < 0:
		case every <= 1 || (i+1)%every == 0:
			m.ResumeToken = ResumeToken(i)
		}
	}
	return msgs, nil
}

// checkCut validates a cut path against v. In lenient mode a string offset
// inside a UTF-8 character moves back to the character start.
func checkCut(v *structpb.Value, path []int, strict bool) ([]int, error) {
	for d, idx := range path {
		switch k := v.GetKind().(type) {
		case *structpb.Value_StringValue:
			if d != len(path)-1 {
				return nil, fmt.Errorf("path element %d descends into a string", d)
			}
			s := k.StringValue
			if idx < 0 || idx > len(s) {
				return nil, fmt.Errorf("offset %d outside the string of %d bytes", idx, len(s))
			}
			if at := runeStartAtOrBefore(s, idx); at != idx {
				if strict {
					return nil, fmt.Errorf("offset %d is inside a UTF-8 character", idx)
				}
				path[d] = at
			}
		case *structpb.Value_ListValue:
			elems := k.ListValue.GetValues()
			if d == len(path)-1 {
				if idx < 0 || idx > len(elems) {
					return nil, fmt.Errorf("element index %d outside the list of %d", idx, len(elems))
				}
				break
			}
			if idx < 0 || idx >= len(elems) {
				return nil, fmt.Errorf("path element %d: index %d outside the list of %d", d, idx, len(elems))
			}
			v = elems[idx]
		default:
			return nil, fmt.Errorf("value %v cannot be chunked (only string_value and list_value can)", v)
		}
	}
	return path, nil
}

// sortCuts orders cut paths by position in the value (a boundary cut before
// an element sorts before cuts inside it) and drops duplicates.
func sortCuts(cuts [][]int) [][]int {
	slices.SortFunc(cuts, slices.Compare[[]int])
	return slices.CompactFunc(cuts, slices.Equal[[]int])
}

// splitValue cuts v at the sorted, valid cut paths and returns the
// len(cuts)+1 pieces; merging them left to right gives v.
func splitValue(v *structpb.Value, cuts [][]int) []*structpb.Value {
	if len(cuts) == 0 {
		return []*structpb.Value{v}
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		s := k.StringValue
		pieces := make([]*structpb.Value, 0, len(cuts)+1)
		prev := 0
		for _, c := range cuts {
			pieces = append(pieces, strValue(s[prev:c[0]]))
			prev = c[0]
		}
		return append(pieces, strValue(s[prev:]))
	case *structpb.Value_ListValue:
		elems := k.ListValue.GetValues()
		var pieces []*structpb.Value
		cur := []*structpb.Value{}
		ci := 0
		for i := 0; i <= len(elems); i++ {
			for ci < len(cuts) && len(cuts[ci]) == 1 && cuts[ci][0] == i {
				pieces = append(pieces, listValue(cur))
				cur = []*structpb.Value{}
				// A string or list element before the cut would be merged
				// with the next piece's first element: give it an empty
				// continuation.
				if i > 0 && mergeable(elems[i-1]) {
					cur = append(cur, emptyLike(elems[i-1]))
				}
				ci++
			}
			if i == len(elems) {
				break
			}
			var sub [][]int
			for ci < len(cuts) && len(cuts[ci]) > 1 && cuts[ci][0] == i {
				sub = append(sub, cuts[ci][1:])
				ci++
			}
			if len(sub) == 0 {
				cur = append(cur, elems[i])
				continue
			}
			sp := splitValue(elems[i], sub)
			cur = append(cur, sp[0])
			for _, p := range sp[1:] {
				pieces = append(pieces, listValue(cur))
				cur = []*structpb.Value{p}
			}
		}
		return append(pieces, listValue(cur))
	default:
		return []*structpb.Value{v} // unreachable for checked cuts
	}
}

// randomCut returns a random valid cut path into a string or list value.
func randomCut(rng *rand.Rand, v *structpb.Value) []int {
	var path []int
	for {
		switch k := v.GetKind().(type) {
		case *structpb.Value_StringValue:
			s := k.StringValue
			return append(path, runeStartAtOrBefore(s, rng.IntN(len(s)+1)))
		case *structpb.Value_ListValue:
			elems := k.ListValue.GetValues()
			if len(elems) == 0 || rng.IntN(3) == 0 {
				return append(path, rng.IntN(len(elems)+1))
			}
			i := rng.IntN(len(elems))
			if !mergeable(elems[i]) {
				return append(path, rng.IntN(len(elems)+1))
			}
			path = append(path, i)
			v = elems[i]
		default:
			return append(path, 0) // unreachable: callers pass mergeable values
		}
	}
}

// autoCutter finds cut points that keep messages near max bytes.
type autoCutter struct {
	max   int
	fill  int
	fresh bool // nothing but framing in the current message
	cuts  [][]int
}

func (a *autoCutter) cut(path []int, at, depth int) {
	a.cuts = append(a.cuts, append(slices.Clone(path), at))
	a.fill = overhead * (depth + 1)
	a.fresh = true
}

func (a *autoCutter) add(n int) {
	a.fill += n
	if n > 0 {
		a.fresh = false
	}
}

func (a *autoCutter) walk(v *structpb.Value, path []int, depth int) {
	if sz := valueSize(v); a.fill+sz <= a.max {
		a.add(sz)
		return
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		s := k.StringValue
		a.fill += overhead
		off := 0
		for {
			room := a.max - a.fill
			if len(s)-off <= room {
				a.add(len(s) - off)
				return
			}
			c := runeStartAtOrBefore(s, off+max(room, 0))
			if c <= off {
				if !a.fresh {
					a.cut(path, off, depth) // end this message before the rest
					continue
				}
				_, n := utf8.DecodeRuneInString(s[off:])
				c = off + n // make progress even when one character is too big
			}
			a.cut(path, c, depth)
			off = c
		}
	case *structpb.Value_ListValue:
		elems := k.ListValue.GetValues()
		a.fill += overhead
		for i, e := range elems {
			es := valueSize(e)
			if a.fill+es <= a.max {
				a.add(es)
				continue
			}
			if !a.fresh && !(mergeable(e) && es > a.max/2) {
				// Move e to the next message rather than cutting it.
				a.cut(path, i, depth)
				if i > 0 && mergeable(elems[i-1]) {
					a.fill += overhead
				}
				if a.fill+es <= a.max {
					a.add(es)
					continue
				}
			}
			if mergeable(e) {
				a.walk(e, append(path, i), depth+1)
			} else {
				a.add(es)
			}
		}
	default:
		a.add(valueSize(v))
	}
}
