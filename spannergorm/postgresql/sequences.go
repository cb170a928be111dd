package spannerpg

import (
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// The values of SpannerConfig.DefaultSequenceKind with a meaning of their
// own, under the names spannergorm (and go-gorm-spanner's GoogleSQL
// dialector) gives them.
const (
	// DefaultSequenceKind is the kind of an IDENTITY key's sequence when
	// SpannerConfig.DefaultSequenceKind is empty.
	DefaultSequenceKind = gormcore.BitReversedPositive
	// AutoIncrementIdentityColumns makes keys IDENTITY columns without a
	// kind, whose sequence kind is the database's default_sequence_kind
	// option (PostgreSQL has no AUTO_INCREMENT keyword).
	AutoIncrementIdentityColumns = gormcore.AutoIncrement
	// DisableIdentityColumns makes keys take their values from a
	// bit-reversed sequence of their own (CREATE SEQUENCE table_seq)
	// through a column default, nextval('table_seq'), instead of an
	// IDENTITY column. (SpannerConfig.DisableIdentityColumns is another
	// thing: plain bigint keys.)
	DisableIdentityColumns = gormcore.Disabled
)

// SequenceNameTag is the struct tag that names the sequence of an
// auto-increment key: `gorm_sequence_name:"singer_seq"` creates it with
// CREATE SEQUENCE IF NOT EXISTS and makes nextval of it the column's
// default.
const SequenceNameTag = gormcore.SequenceNameTag

// ErrConfig is the error of a SpannerConfig whose options cannot work
// together or cannot be written into DDL.
var ErrConfig = status.Error(codes.InvalidArgument, "spannerpg: invalid SpannerConfig")

// sequences is the SpannerConfig's choice of how auto-increment keys get
// their values (the rules are gormcore's, shared with spannergorm).
func (c SpannerConfig) sequences() gormcore.Sequences {
	return gormcore.Sequences{Kind: c.DefaultSequenceKind, DisableIdentityColumns: c.DisableIdentityColumns, ErrConfig: ErrConfig}
}

// createSequences creates the sequences of a model's keys before its
// table, bit-reversed.
func (m Migrator) createSequences(tx *gorm.DB, stmt *gorm.Statement) error {
	return m.dialector.SpannerConfig.sequences().CreateSequences(tx, stmt,
		"CREATE SEQUENCE IF NOT EXISTS ? BIT_REVERSED_POSITIVE")
}

// keyDefinition returns what follows the type of an auto-increment key's
// column: nextval of its sequence as its default, or the IDENTITY clause;
// "" for any other column. Spanner reads the sequence's name in nextval
// as written, without PostgreSQL's folding or quotes.
func (m Migrator) keyDefinition(f *schema.Field) string {
	k := m.dialector.SpannerConfig.sequences().Key(f)
	switch {
	case k.Sequence != "":
		return " DEFAULT nextval('" + strings.ReplaceAll(k.Sequence, "'", "''") + "')"
	case k.Identity:
		return gormcore.IdentitySQL(k.Kind)
	}
	return ""
}
