package dialecttest

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// Label has a secondary index, a table interleaved in it (Release) and
// a table whose foreign key references it (Contract): each of the three
// makes Spanner refuse a bare DROP TABLE of labels.
type Label struct {
	ID   int64  `gorm:"primaryKey;autoIncrement:false"`
	Name string `gorm:"index:idx_labels_name"`
}

// Release is interleaved in Label (its key starts with the label's id),
// with an index of its own. GORM knows no relation between the two: only
// the catalog orders them.
type Release struct {
	LabelID int64  `gorm:"column:id;primaryKey;autoIncrement:false"`
	Number  int64  `gorm:"primaryKey;autoIncrement:false"`
	Title   string `gorm:"index:idx_releases_title"`
}

// InterleaveInParent interleaves releases in labels.
func (Release) InterleaveInParent() gormcore.Interleave { return gormcore.Interleave{Parent: "labels"} }

// Contract belongs to a Label through a foreign key.
type Contract struct {
	ID      int64 `gorm:"primaryKey;autoIncrement:false"`
	LabelID int64
	Label   *Label
}

// DropTable checks on db, an empty database of either dialect, that
// Migrator().DropTable drops tables that Spanner would refuse to drop
// bare: a table with an interleaved child or a foreign key of a table
// that is not dropped with it fails with a DropTableError naming the
// blocker (FailedPrecondition) and drops nothing, unless fkDropped (the
// dialect drops such keys, as PostgreSQL's CASCADE does); the three
// tables given parent first go in one DDL batch, indexes before their
// table, children and referencing tables before their parent; a dry run
// shows the same DDL without the batch and drops nothing; a missing
// table is skipped. want is the dialect's text of that batch's
// statements, START BATCH DDL to RUN BATCH.
func DropTable(t *testing.T, db *gorm.DB, fkDropped bool, want []string) {
	t.Helper()
	if err := db.AutoMigrate(&Label{}, &Release{}, &Contract{}); err != nil {
		t.Fatal(err)
	}
	m := db.Migrator()
	var dropErr *gormcore.DropTableError

	err := m.DropTable(&Label{})
	if !errors.As(err, &dropErr) || dropErr.Table != "labels" || dropErr.Child != "releases" ||
		status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), `"releases"`) {
		t.Fatalf("DropTable(labels) = %v, want a DropTableError naming the interleaved releases", err)
	}
	if !fkDropped {
		err = m.DropTable(&Label{}, &Release{})
		if !errors.As(err, &dropErr) || dropErr.ForeignKey != "fk_contracts_label" || dropErr.ForeignKeyTable != "contracts" ||
			status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), `"fk_contracts_label"`) {
			t.Fatalf("DropTable(labels, releases) = %v, want a DropTableError naming contracts' foreign key", err)
		}
	}
	for _, table := range []any{&Label{}, &Release{}, &Contract{}} {
		if !m.HasTable(table) {
			t.Fatalf("a refused DropTable dropped %T", table)
		}
	}

	var (
		mu    sync.Mutex
		texts []string
	)
	if err := db.Callback().Raw().After("gorm:raw").Register("dialecttest:record_ddl", func(tx *gorm.DB) {
		mu.Lock()
		defer mu.Unlock()
		if s := tx.Statement.SQL.String(); !strings.HasPrefix(strings.ToUpper(s), "SELECT") {
			texts = append(texts, s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	taken := func() []string {
		mu.Lock()
		defer mu.Unlock()
		got := slices.Clone(texts)
		texts = nil
		return got
	}
	// A dry run reads the catalog, shows the DDL without a batch and
	// drops nothing.
	if err := db.Session(&gorm.Session{DryRun: true}).Migrator().DropTable(&Label{}, &Release{}, &Contract{}); err != nil {
		t.Fatalf("DropTable in a dry run: %v", err)
	}
	if got, wantDry := taken(), want[1:len(want)-1]; !slices.Equal(got, wantDry) {
		t.Errorf("DropTable in a dry run showed\n %q\nwant\n %q", got, wantDry)
	}
	if !m.HasTable(&Label{}) {
		t.Fatal("a dry run dropped labels")
	}
	if err := m.DropTable(&Label{}, &Release{}, &Contract{}); err != nil {
		t.Fatalf("DropTable of all three: %v", err)
	}
	if got := taken(); !slices.Equal(got, want) {
		t.Errorf("DropTable sent\n %q\nwant\n %q", got, want)
	}
	if tables, err := m.GetTables(); err != nil || len(tables) != 0 {
		t.Fatalf("tables left: %q, %v", tables, err)
	}
	if err := m.DropTable(&Label{}); err != nil {
		t.Fatalf("DropTable of a missing table: %v", err)
	}
}
