package structscan

import (
	"reflect"
	"sort"
	"strings"
)

// goField is a Go struct field that a STRUCT field can decode into, found
// by the official client's rules (cloud.google.com/go/internal/fields with
// the spanner tag parser), which follow Go's own rules for promoted fields.
type goField struct {
	name    string // effective name: the tag's, else the field's
	fromTag bool
	typ     reflect.Type
	index   []int
	path    string // Go names joined by dots, for errors
}

// tagName parses a `spanner:"..."` tag as the official client does: "-"
// skips the field, "->" (read-only) keeps it under its Go name, and only
// the part before the first ';' is the name.
func tagName(tag reflect.StructTag) (name string, keep bool) {
	s := tag.Get("spanner")
	switch s {
	case "":
		return "", true
	case "-":
		return "", false
	case "->":
		return "", true
	}
	name, _, _ = strings.Cut(s, ";")
	return name, true
}

// structFields lists t's decodable fields in index order, breadth first
// through embedded structs, dropping names that hide each other.
func structFields(t reflect.Type) []goField {
	type scan struct {
		typ   reflect.Type
		index []int
		path  string
	}
	var (
		fields    []goField
		current   []scan
		next      = []scan{{typ: t}}
		nextCount map[reflect.Type]int
		visited   = map[reflect.Type]bool{}
	)
	for len(next) > 0 {
		current, next = next, current[:0]
		count := nextCount
		nextCount = nil
		for _, sc := range current {
			if visited[sc.typ] {
				continue
			}
			visited[sc.typ] = true
			for i := range sc.typ.NumField() {
				f := sc.typ.Field(i)
				exported := f.PkgPath == ""
				if !exported && !f.Anonymous {
					continue
				}
				name, keep := tagName(f.Tag)
				if !keep {
					continue
				}
				index := append(append([]int(nil), sc.index...), i)
				path := f.Name
				if sc.path != "" {
					path = sc.path + "." + f.Name
				}
				var embedded reflect.Type
				if f.Anonymous {
					embedded = f.Type
					if embedded.Kind() == reflect.Pointer {
						embedded = embedded.Elem()
					}
				}
				if name != "" || embedded == nil || embedded.Kind() != reflect.Struct {
					if !exported {
						continue
					}
					gf := goField{name: name, fromTag: name != "", typ: f.Type, index: index, path: path}
					if gf.name == "" {
						gf.name = f.Name
					}
					fields = append(fields, gf)
					if count[sc.typ] > 1 {
						// The same struct embedded twice at this depth: its
						// fields annihilate each other.
						fields = append(fields, gf)
					}
					continue
				}
				if nextCount[embedded] > 0 {
					nextCount[embedded] = 2
					continue
				}
				if nextCount == nil {
					nextCount = map[reflect.Type]int{}
				}
				nextCount[embedded] = 1
				if count[sc.typ] > 1 {
					nextCount[embedded] = 2
				}
				next = append(next, scan{typ: embedded, index: index, path: path})
			}
		}
	}
	sort.SliceStable(fields, func(i, j int) bool {
		a, b := fields[i], fields[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.fromTag != b.fromTag {
			return a.fromTag
		}
		return indexLess(a.index, b.index)
	})
	var out []goField
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		// The dominant field is the shallowest, tagged first; a tie hides
		// the name altogether.
		if j-i == 1 || len(fields[i].index) != len(fields[i+1].index) || fields[i].fromTag != fields[i+1].fromTag {
			out = append(out, fields[i])
		}
		i = j
	}
	sort.Slice(out, func(i, j int) bool { return indexLess(out[i].index, out[j].index) })
	return out
}

func indexLess(a, b []int) bool {
	for k := range min(len(a), len(b)) {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// match returns the field a STRUCT field name decodes into: an exact name
// first, else the first in index order equal ignoring case.
func match(fields []goField, name string) *goField {
	var fold *goField
	for i := range fields {
		f := &fields[i]
		if f.name == name {
			return f
		}
		if fold == nil && strings.EqualFold(f.name, name) {
			fold = f
		}
	}
	return fold
}
