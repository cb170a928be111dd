package gormcore

import (
	"reflect"

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
