package gormcore

import (
	"database/sql"
	"reflect"

	"cloud.google.com/go/spanner"
	"gorm.io/gorm/schema"
)

// DataTypeOf chooses a field's column type in the order both dialects
// follow: a type tag (or a serializer) wins and is mapped by general;
// otherwise the Go type's name in the dialect (byGoType, "" when it has
// none); otherwise GORM's general data type, mapped by general.
func DataTypeOf(field *schema.Field, byGoType func(t reflect.Type, size int) string, general func(*schema.Field) string) string {
	if _, tagged := field.TagSettings["TYPE"]; tagged || field.Serializer != nil {
		return general(field)
	}
	if t := byGoType(field.IndirectFieldType, field.Size); t != "" {
		return t
	}
	return general(field)
}

// Interleave places a table in its parent's splits; a model says so by
// implementing Interleaved.
type Interleave struct {
	Parent          string // the parent table
	OnDeleteCascade bool   // ON DELETE CASCADE instead of NO ACTION
}

// Interleaved is implemented by models whose table is interleaved in a
// parent table. The child's primary key must start with the parent's.
type Interleaved interface {
	InterleaveInParent() Interleave
}

// OnDelete is the ON DELETE action of an interleaved table.
func (i Interleave) OnDelete() string {
	if i.OnDeleteCascade {
		return "CASCADE"
	}
	return "NO ACTION"
}

// TypeNames are a dialect's names for column types; GoType and General
// apply the mapping both dialects share.
type TypeNames struct {
	// Named are the Go types whose column type their kind does not tell.
	Named map[reflect.Type]string
	// Bool, Int and Time name those types; Float32 and Float64 the
	// floats (a float field of size 32 is Float32).
	Bool, Int, Time, Float32, Float64 string
	// ArrayFloat32 and ArrayFloat64 are the float elements of an array.
	ArrayFloat32, ArrayFloat64 string
	// String and Bytes name those types with a length (0 is unbounded).
	String, Bytes func(size int) string
	// Array names an array of elem, or returns "" when elem is itself an
	// array (Spanner has no arrays of arrays).
	Array func(elem string) string
}

// stringTypes are the nullable strings, columns of the string type.
var stringTypes = map[reflect.Type]bool{
	reflect.TypeFor[spanner.NullString](): true,
	reflect.TypeFor[sql.NullString]():     true,
}

// GoType returns the column type of a Go type, or "" when it has none;
// size is the length of strings and bytes.
func (n *TypeNames) GoType(t reflect.Type, size int) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if name, ok := n.Named[t]; ok {
		return name
	}
	if stringTypes[t] {
		return n.String(size)
	}
	switch t.Kind() {
	case reflect.Bool:
		return n.Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return n.Int
	case reflect.Float32:
		return n.Float32
	case reflect.Float64:
		return n.Float64
	case reflect.String:
		return n.String(size)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return n.Bytes(size)
		}
		if elem := n.arrayElement(t.Elem(), size); elem != "" {
			return n.Array(elem)
		}
	}
	return ""
}

func (n *TypeNames) arrayElement(t reflect.Type, size int) string {
	switch t.Kind() {
	case reflect.Float64:
		return n.ArrayFloat64
	case reflect.Float32:
		return n.ArrayFloat32
	}
	return n.GoType(t, size)
}

// General maps GORM's general data types; anything else (a type tag,
// GormDataType) is taken as the dialect's type name.
func (n *TypeNames) General(f *schema.Field) string {
	switch f.DataType {
	case schema.Bool:
		return n.Bool
	case schema.Int, schema.Uint:
		return n.Int
	case schema.Float:
		if f.Size == 32 {
			return n.Float32
		}
		return n.Float64
	case schema.String:
		return n.String(f.Size)
	case schema.Bytes:
		return n.Bytes(f.Size)
	case schema.Time:
		return n.Time
	}
	return string(f.DataType)
}
