package spannerpg

import (
	"database/sql"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"gorm.io/gorm/schema"
)

// namedTypes are the Go types whose PostgreSQL type their kind does not
// tell. The spanner.Null* types name GoogleSQL types in GormDataType, so
// they are mapped here.
var namedTypes = map[reflect.Type]string{
	reflect.TypeFor[time.Time]():           "timestamptz",
	reflect.TypeFor[spanner.NullTime]():    "timestamptz",
	reflect.TypeFor[sql.NullTime]():        "timestamptz",
	reflect.TypeFor[civil.Date]():          "date",
	reflect.TypeFor[spanner.NullDate]():    "date",
	reflect.TypeFor[big.Rat]():             "numeric",
	reflect.TypeFor[spanner.NullNumeric](): "numeric",
	reflect.TypeFor[spanner.PGNumeric]():   "numeric",
	reflect.TypeFor[spanner.NullJSON]():    "jsonb",
	reflect.TypeFor[spanner.PGJsonB]():     "jsonb",
	reflect.TypeFor[spanner.NullInt64]():   "bigint",
	reflect.TypeFor[sql.NullInt64]():       "bigint",
	reflect.TypeFor[sql.NullInt32]():       "bigint",
	reflect.TypeFor[spanner.NullFloat64](): "double precision",
	reflect.TypeFor[spanner.NullFloat32](): "real",
	reflect.TypeFor[sql.NullFloat64]():     "numeric",
	reflect.TypeFor[spanner.NullBool]():    "boolean",
	reflect.TypeFor[sql.NullBool]():        "boolean",
}

var stringTypes = map[reflect.Type]bool{
	reflect.TypeFor[spanner.NullString](): true,
	reflect.TypeFor[sql.NullString]():     true,
}

// typeName returns the PostgreSQL type of a Go type on Spanner, or "" when
// it has none; size is the length of varchar (0 is unbounded). Go floats
// are numeric, as in GORM's PostgreSQL dialector and go-gorm-spanner; a
// type tag (float8, real) chooses a floating point column.
func typeName(t reflect.Type, size int) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := namedTypes[t]; ok {
		return n
	}
	if stringTypes[t] {
		return varchar(size)
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "bigint"
	case reflect.Float32, reflect.Float64:
		return "numeric"
	case reflect.String:
		return varchar(size)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytea"
		}
		// Spanner has no arrays of arrays.
		if elem := arrayElement(t.Elem(), size); elem != "" && !strings.HasSuffix(elem, "[]") {
			return elem + "[]"
		}
	}
	return ""
}

// arrayElement is the element type of an array column. Float elements
// are float8 and float4, not numeric: Spanner does not cast an array of
// FLOAT64 parameters to numeric[] as it does a single value.
func arrayElement(t reflect.Type, size int) string {
	switch t.Kind() {
	case reflect.Float64:
		return "double precision"
	case reflect.Float32:
		return "real"
	}
	return typeName(t, size)
}

func varchar(size int) string {
	if size <= 0 {
		return "varchar"
	}
	return "varchar(" + strconv.Itoa(size) + ")"
}

// generalType maps GORM's general data types; anything else (a type tag,
// GormDataType) is taken as the PostgreSQL type.
func generalType(f *schema.Field) string {
	switch f.DataType {
	case schema.Bool:
		return "boolean"
	case schema.Int, schema.Uint:
		return "bigint"
	case schema.Float:
		return "numeric"
	case schema.String:
		return varchar(f.Size)
	case schema.Bytes:
		return "bytea"
	case schema.Time:
		return "timestamptz"
	}
	return string(f.DataType)
}
