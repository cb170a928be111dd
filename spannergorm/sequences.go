package spannergorm

import (
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// The values of Config.DefaultSequenceKind with a meaning of their own,
// under go-gorm-spanner's names.
const (
	// DefaultSequenceKind is the kind of an IDENTITY key's sequence when
	// Config.DefaultSequenceKind is empty.
	DefaultSequenceKind = gormcore.BitReversedPositive
	// AutoIncrementIdentityColumns makes keys AUTO_INCREMENT columns, whose
	// sequence kind is the database's default_sequence_kind option.
	AutoIncrementIdentityColumns = gormcore.AutoIncrement
	// DisableIdentityColumns makes keys take their values from a
	// bit-reversed sequence of their own (CREATE SEQUENCE table_seq) through
	// a column default instead of an IDENTITY column.
	DisableIdentityColumns = gormcore.Disabled
)

// SequenceNameTag is the struct tag that names the sequence of an
// auto-increment key: `gorm_sequence_name:"singer_seq"` creates it with
// CREATE SEQUENCE IF NOT EXISTS and makes it the column's default.
const SequenceNameTag = gormcore.SequenceNameTag

// ErrConfig is the error of a Config whose options cannot work together
// or cannot be written into DDL.
var ErrConfig = status.Error(codes.InvalidArgument, "spannergorm: invalid Config")

// sequences is the Config's choice of how auto-increment keys get their
// values (the rules are gormcore's, shared with spannerpg).
func (c *Config) sequences() gormcore.Sequences {
	return gormcore.Sequences{Kind: c.DefaultSequenceKind, DisableIdentityColumns: c.DisableIdentityColumns, ErrConfig: ErrConfig}
}

// createSequences creates the sequences of a model's keys before its
// table, bit-reversed as go-gorm-spanner's.
func (m Migrator) createSequences(tx *gorm.DB, stmt *gorm.Statement) error {
	return m.dialector.sequences().CreateSequences(tx, stmt,
		`CREATE SEQUENCE IF NOT EXISTS ? OPTIONS (sequence_kind = "bit_reversed_positive")`)
}

// keyDefinition returns what follows the type of an auto-increment key's
// column: the sequence default, AUTO_INCREMENT or the IDENTITY clause;
// "" for any other column.
func (m Migrator) keyDefinition(f *schema.Field) string {
	k := m.dialector.sequences().Key(f)
	switch {
	case k.Sequence != "":
		var b strings.Builder
		m.dialector.QuoteTo(&b, k.Sequence)
		return " DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE " + b.String() + "))"
	case !k.Identity:
		return ""
	case k.Kind == "":
		return " AUTO_INCREMENT"
	default:
		return gormcore.IdentitySQL(k.Kind)
	}
}
