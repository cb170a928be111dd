package spannergorm

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// namedTypes are the Go types whose GoogleSQL type their kind does not tell.
var namedTypes = map[reflect.Type]string{
	reflect.TypeFor[time.Time]():           "TIMESTAMP",
	reflect.TypeFor[spanner.NullTime]():    "TIMESTAMP",
	reflect.TypeFor[sql.NullTime]():        "TIMESTAMP",
	reflect.TypeFor[civil.Date]():          "DATE",
	reflect.TypeFor[spanner.NullDate]():    "DATE",
	reflect.TypeFor[big.Rat]():             "NUMERIC",
	reflect.TypeFor[spanner.NullNumeric](): "NUMERIC",
	reflect.TypeFor[spanner.NullJSON]():    "JSON",
	reflect.TypeFor[uuid.UUID]():           "UUID",
	reflect.TypeFor[spanner.NullUUID]():    "UUID",
	reflect.TypeFor[spanner.NullInt64]():   "INT64",
	reflect.TypeFor[sql.NullInt64]():       "INT64",
	reflect.TypeFor[sql.NullInt32]():       "INT64",
	reflect.TypeFor[spanner.NullFloat64](): "FLOAT64",
	reflect.TypeFor[sql.NullFloat64]():     "FLOAT64",
	reflect.TypeFor[spanner.NullFloat32](): "FLOAT32",
	reflect.TypeFor[spanner.NullBool]():    "BOOL",
	reflect.TypeFor[sql.NullBool]():        "BOOL",
	reflect.TypeFor[CommitTimestamp]():     "TIMESTAMP",
}

// names are GoogleSQL's type names: STRING and BYTES sized (0 is MAX),
// FLOAT32 for float32, ARRAY<T>.
var names = &gormcore.TypeNames{
	Named: namedTypes, Bool: "BOOL", Int: "INT64", Time: "TIMESTAMP",
	Float32: "FLOAT32", Float64: "FLOAT64", ArrayFloat32: "FLOAT32", ArrayFloat64: "FLOAT64",
	String: func(size int) string { return sized("STRING", size) },
	Bytes:  func(size int) string { return sized("BYTES", size) },
	Array: func(elem string) string {
		if strings.HasPrefix(elem, "ARRAY<") {
			return ""
		}
		return "ARRAY<" + elem + ">"
	},
}

// typeName returns the GoogleSQL type of a Go type, or "" when the type
// has none; size is the length of STRING and BYTES (0 is MAX).
func typeName(t reflect.Type, size int) string { return names.GoType(t, size) }

func sized(base string, size int) string {
	if size <= 0 {
		return base + "(MAX)"
	}
	return base + "(" + strconv.Itoa(size) + ")"
}

// CommitTimestamp is a model field that writes the commit timestamp, in
// either dialector: GORM renders it as PENDING_COMMIT_TIMESTAMP() in
// INSERT and UPDATE, and the migrator creates its column as TIMESTAMP
// OPTIONS (allow_commit_timestamp=true); under the PostgreSQL dialector
// (spannergorm/postgresql) the value is spanner.pending_commit_timestamp()
// and the column spanner.commit_timestamp. Reading fills Timestamp.
type CommitTimestamp struct {
	Timestamp sql.NullTime
}

// GormDataType implements schema.GormDataTypeInterface.
func (CommitTimestamp) GormDataType() string { return "TIMESTAMP" }

// GormDBDataType implements migrator.GormDataTypeInterface: Spanner's
// PostgreSQL type for the column under the PostgreSQL dialector, and
// nothing (the dialector's own rule) under this one.
func (CommitTimestamp) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if isPostgreSQL(db) {
		return "spanner.commit_timestamp"
	}
	return ""
}

// GormValue implements gorm.Valuer.
func (CommitTimestamp) GormValue(_ context.Context, db *gorm.DB) clause.Expr {
	if isPostgreSQL(db) {
		return clause.Expr{SQL: "spanner.pending_commit_timestamp()"}
	}
	return clause.Expr{SQL: "PENDING_COMMIT_TIMESTAMP()"}
}

// isPostgreSQL reports whether db's dialector is another than this one:
// the types of this package that both dialectors take (Array,
// CommitTimestamp) then write the PostgreSQL form.
func isPostgreSQL(db *gorm.DB) bool {
	return db != nil && db.Dialector != nil && db.Dialector.Name() != (Dialector{}).Name()
}

// Scan implements sql.Scanner.
func (c *CommitTimestamp) Scan(v any) error {
	return c.Timestamp.Scan(v)
}

// Array is a model field for an ARRAY column with elements of type T,
// where T is a Go type that spannerfast binds: a native type (int64,
// string, float64, bool, time.Time, civil.Date, big.Rat, uuid.UUID,
// []byte, ...) or a spanner.Null* type. GORM needs the named slice type:
// a plain slice would be expanded into a list of parameters.
//
// Scan accepts the driver's []T and any other slice, each element
// converted as database/sql converts a column's value (arrayscan.go).
type Array[T any] []T

// Value implements driver.Valuer: the slice itself, which the driver binds
// as an ARRAY parameter.
func (a Array[T]) Value() (sqldriver.Value, error) {
	if a == nil {
		return []T(nil), nil
	}
	return []T(a), nil
}

// GormDataType implements schema.GormDataTypeInterface. An element type
// GoogleSQL has no name for (spanner.PGNumeric, spanner.PGJsonB: types of
// the PostgreSQL dialect only) still gets a data type, "ARRAY", so that
// GORM takes the field for a column rather than a relation; the
// PostgreSQL dialector names its column from the element type
// (numeric[], jsonb[]), and GoogleSQL's engine refuses the column.
func (a Array[T]) GormDataType() string {
	if name := typeName(reflect.TypeFor[[]T](), 0); name != "" {
		return name
	}
	return "ARRAY"
}

// GormDBDataType implements migrator.GormDataTypeInterface; a size tag
// applies to STRING and BYTES elements. Under another dialector (the
// PostgreSQL one) it says nothing, and that dialector names the column
// type from the element type.
func (a Array[T]) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	if isPostgreSQL(db) {
		return ""
	}
	return typeName(reflect.TypeFor[[]T](), f.Size)
}
