package gormcore

import (
	"math"
	"strconv"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// RegisterOmitPrimaryKey makes updates leave the primary key columns out
// of SET: Spanner refuses to update key columns in both dialects.
func RegisterOmitPrimaryKey(db *gorm.DB) error {
	return db.Callback().Update().After("gorm:before_update").Before("gorm:update").
		Register("spanner:omit_primary_key", omitPrimaryKey)
}

func omitPrimaryKey(db *gorm.DB) {
	if db.Statement.Schema != nil {
		db.Statement.Omit(db.Statement.Schema.PrimaryFieldDBNames...)
	}
}

// BuildLimit renders LIMIT and OFFSET. Spanner has no OFFSET without
// LIMIT in either dialect, so an offset alone gets the largest limit.
func BuildLimit(c clause.Clause, b clause.Builder) {
	l, _ := c.Expression.(clause.Limit)
	limit := -1
	if l.Limit != nil && *l.Limit >= 0 {
		limit = *l.Limit
	}
	if limit < 0 && l.Offset <= 0 {
		return
	}
	b.WriteString("LIMIT ")
	if limit < 0 {
		b.WriteString(strconv.FormatInt(math.MaxInt64, 10))
	} else {
		b.WriteString(strconv.Itoa(limit))
	}
	if l.Offset > 0 {
		b.WriteString(" OFFSET ")
		b.WriteString(strconv.Itoa(l.Offset))
	}
}
