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

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
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

// names are the PostgreSQL dialect's type names. Go floats are numeric,
// as in GORM's PostgreSQL dialector and go-gorm-spanner; a type tag
// (float8, real) chooses a floating point column. Float elements of an
// array are float8 and float4, not numeric: Spanner does not cast an
// array of FLOAT64 parameters to numeric[] as it does a single value.
var names = &gormcore.TypeNames{
	Named: namedTypes, Bool: "boolean", Int: "bigint", Time: "timestamptz",
	Float32: "numeric", Float64: "numeric", ArrayFloat32: "real", ArrayFloat64: "double precision",
	String: varchar,
	Bytes:  func(int) string { return "bytea" },
	Array: func(elem string) string {
		if strings.HasSuffix(elem, "[]") {
			return ""
		}
		return elem + "[]"
	},
}

func varchar(size int) string {
	if size <= 0 {
		return "varchar"
	}
	return "varchar(" + strconv.Itoa(size) + ")"
}
