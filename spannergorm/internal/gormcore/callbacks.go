package gormcore

import (
	"math"

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

// BuildLimit renders LIMIT and OFFSET with their values as query
// parameters, so that one query shape has one text whatever the page
// size: a literal per value would fill the driver's statement cache and
// Spanner's plan cache with copies. Spanner has no OFFSET without LIMIT
// in either dialect, so an offset alone gets the largest limit.
func BuildLimit(c clause.Clause, b clause.Builder) {
	l, _ := c.Expression.(clause.Limit)
	hasLimit := l.Limit != nil && *l.Limit >= 0
	if !hasLimit && l.Offset <= 0 {
		return
	}
	b.WriteString("LIMIT ")
	if hasLimit {
		b.AddVar(b, int64(*l.Limit))
	} else {
		b.AddVar(b, int64(math.MaxInt64))
	}
	if l.Offset > 0 {
		b.WriteString(" OFFSET ")
		b.AddVar(b, int64(l.Offset))
	}
}
