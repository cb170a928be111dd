package spannerpg_test

import (
	"database/sql"
	"testing"

	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// Gauge has an auto-increment key.
type Gauge struct {
	ID   uint64
	Name string
}

// Meter's key has a sequence of its own, by tag.
type Meter struct {
	ID   int64 `gorm:"primaryKey" gorm_sequence_name:"meter_ids"`
	Name string
}

// TestEmulatorSequences: every DefaultSequenceKind on a PostgreSQL-dialect
// database: the default, a kind by name, AUTO_INCREMENT (IDENTITY of the
// database's default_sequence_kind, which the test sets first), DISABLED
// and a tagged key migrate; Create gets two distinct keys through
// RETURNING; a key's own sequence exists and is its default; a second migration
// sends nothing. Without default_sequence_kind, AUTO_INCREMENT fails on
// the engine.
func TestEmulatorSequences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, kind string
		tagged     bool
		sequence   string // the sequence whose state must move, "" for IDENTITY
		setKind    bool   // set the database's default_sequence_kind first
	}{
		{name: "default"},
		{name: "named kind", kind: "BIT_REVERSED_POSITIVE"},
		{name: "AUTO_INCREMENT", kind: "AUTO_INCREMENT", setKind: true},
		{name: "DISABLED", kind: "DISABLED", sequence: "gauges_seq"},
		{name: "tag", tagged: true, sequence: "meter_ids"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openEmulator(t, spannerpg.SpannerConfig{DefaultSequenceKind: c.kind})
			if c.setKind {
				if err := db.Exec(`ALTER DATABASE db SET spanner.default_sequence_kind = 'bit_reversed_positive'`).Error; err != nil {
					t.Fatal(err)
				}
			}
			var model any = &Gauge{}
			if c.tagged {
				model = &Meter{}
			}
			if err := db.AutoMigrate(model); err != nil {
				t.Fatalf("AutoMigrate: %v", err)
			}
			var ids []int64
			for _, name := range []string{"a", "b"} {
				var err error
				if c.tagged {
					v := Meter{Name: name}
					err = db.Create(&v).Error
					ids = append(ids, v.ID)
				} else {
					v := Gauge{Name: name}
					err = db.Create(&v).Error
					ids = append(ids, int64(v.ID))
				}
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
			}
			if ids[0] <= 0 || ids[1] <= 0 || ids[0] == ids[1] {
				t.Errorf("keys %v, want two distinct database-generated keys", ids)
			}
			// The key's default is its sequence, which exists. (The
			// emulator's spanner.get_internal_sequence_state fails now and
			// then with "needs access to the schema", so the use is seen
			// in the catalog instead.)
			table := map[bool]string{false: "gauges", true: "meters"}[c.tagged]
			var def sql.NullString
			if err := db.Raw("SELECT column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? AND column_name = 'id'", table).
				Scan(&def).Error; err != nil {
				t.Fatal(err)
			}
			var sequences int64
			if err := db.Raw("SELECT count(*) FROM information_schema.sequences WHERE sequence_name = ?", c.sequence).Scan(&sequences).Error; err != nil {
				t.Fatal(err)
			}
			if c.sequence == "" && (def.Valid || sequences != 0) {
				t.Errorf("IDENTITY key has default %q", def.String)
			}
			if c.sequence != "" && (def.String != "nextval('"+c.sequence+"'::text)" || sequences != 1) {
				t.Errorf("key default %q, %d sequences %s; want nextval of it", def.String, sequences, c.sequence)
			}
			if again, err := spannerpg.MigrationStatements(db, model); err != nil || len(again) != 0 {
				t.Errorf("second migration = %q, %v; want none", again, err)
			}
		})
	}
	t.Run("AUTO_INCREMENT without default_sequence_kind", func(t *testing.T) {
		t.Parallel()
		db := openEmulator(t, spannerpg.SpannerConfig{DefaultSequenceKind: "AUTO_INCREMENT"})
		if err := db.AutoMigrate(&Gauge{}); err == nil {
			t.Fatal("AutoMigrate of an IDENTITY column without a kind succeeded on a database without default_sequence_kind")
		}
	})
}
