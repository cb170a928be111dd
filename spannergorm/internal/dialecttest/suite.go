package dialecttest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// Dialect is what Suite needs from a dialector's test: how to open a
// database of its dialect and the few things each dialect writes its own
// way.
type Dialect struct {
	// Open returns a GORM handle with cfg on a new, empty database of the
	// dialect (cfg.Logger is set by the caller of Suite or left nil).
	Open func(t *testing.T, cfg *gorm.Config) *gorm.DB
	// Statements returns the DDL a migration of models would send now
	// (the dialector's MigrationStatements).
	Statements func(db *gorm.DB, models ...any) ([]string, error)
	// RunTransaction is spannergorm.RunTransaction.
	RunTransaction func(ctx context.Context, db *gorm.DB, fc func(tx *gorm.DB) error) error
	// Types points to a slice of two rows of the dialect's model with a
	// column of every type it maps: one with a value in every column, one
	// with NULLs and empty values. The model embeds Scalars, has an int64
	// key ID and its table is "all_types".
	Types any
	// Schema checks, after the migration, the column types the engine
	// reports for the tables of Types ("all_types") and Stamped
	// ("stamps"): each dialect reads its own INFORMATION_SCHEMA.
	Schema func(t *testing.T, db *gorm.DB)
	// Stamped points to a zero value of the dialect's model with a commit
	// timestamp: fields ID (int64 key), Name (string) and a column
	// "modified" that each INSERT and UPDATE set to the commit timestamp.
	Stamped any
}

// Scalars are the columns whose Go types both dialects map; a dialect's
// Types model embeds it and adds NUMERIC, JSON, DATE and arrays.
type Scalars struct {
	Int         int64
	Int32       int32
	Uint8       uint8
	Float       float64
	Float32     float32
	String      string
	Sized       string `gorm:"size:10"`
	Bool        bool
	Bytes       []byte
	Time        time.Time
	PtrString   *string
	PtrTime     *time.Time
	NullInt     spanner.NullInt64
	NullString  spanner.NullString
	NullFloat   spanner.NullFloat64
	NullBool    spanner.NullBool
	NullTime    spanner.NullTime
	NullDate    spanner.NullDate
	SQLNullInt  sql.NullInt64
	SQLNullStr  sql.NullString
	SQLNullTime sql.NullTime
	SQLNullBool sql.NullBool
}

// Account is the model of the transaction and abort scenarios: an
// IDENTITY key, a sized name (a longer one fails on the engine).
type Account struct {
	ID      int64
	Name    string `gorm:"size:40"`
	Balance int64
}

// Item is the model of the batch scenario.
type Item struct {
	ID   int64
	N    int64
	Done bool
}

// Hall and Room: Room is interleaved in Hall (its key starts with the
// hall's, with the same name) and deleted with it.
type Hall struct {
	HallID int64 `gorm:"primaryKey;autoIncrement:false"`
	Name   string
	Rooms  []Room `gorm:"foreignKey:HallID"`
}

type Room struct {
	HallID int64 `gorm:"primaryKey;autoIncrement:false"`
	Number int64 `gorm:"primaryKey;autoIncrement:false"`
	Name   string
}

// InterleaveInParent implements gormcore.Interleaved (spannergorm.Interleaved
// and spannerpg.Interleaved).
func (Room) InterleaveInParent() gormcore.Interleave {
	return gormcore.Interleave{Parent: "halls", OnDeleteCascade: true}
}

// suiteModels are the models Suite migrates besides the dialect's.
func suiteModels() []any {
	return append(Models(), &Account{}, &Item{}, &Hall{}, &Room{})
}

// Suite runs the end-to-end scenarios, each a subtest named after what it
// proves, one after the other on one database of the dialect (the
// emulator runs one read-write transaction per database at a time, so the
// subtests do not run in parallel; each uses its own tables or keys).
// AutoMigrateTwice runs first: it migrates every model of the suite.
func Suite(t *testing.T, d Dialect, cfg *gorm.Config) {
	db := d.Open(t, cfg)
	models := append(suiteModels(), d.Types, d.Stamped)
	if !t.Run("AutoMigrateTwice", func(t *testing.T) { autoMigrateTwice(t, d, db, models) }) {
		t.FailNow()
	}
	t.Run("Schema", func(t *testing.T) { d.Schema(t, db) })
	t.Run("Types", func(t *testing.T) { types(t, db, d.Types) })
	t.Run("CommitTimestamps", func(t *testing.T) { commitTimestamps(t, db, d.Stamped) })
	t.Run("Identity", func(t *testing.T) { identity(t, db) })
	t.Run("Interleaved", func(t *testing.T) { interleaved(t, db) })
	t.Run("ForeignKeys", func(t *testing.T) { foreignKeys(t, db) })
	t.Run("Associations", func(t *testing.T) { associations(t, db) })
	t.Run("Transactions", func(t *testing.T) { transactions(t, db) })
	t.Run("RunTransactionAborts", func(t *testing.T) { runTransactionAborts(t, d, db) })
	t.Run("Batches", func(t *testing.T) { batches(t, d, db) })
}

// ddlRecorder records the DDL statements GORM sends through db (the
// migrator sends each with Exec); START BATCH DDL and RUN BATCH are not
// DDL.
func ddlRecorder(t *testing.T, db *gorm.DB) func() []string {
	t.Helper()
	var (
		mu   sync.Mutex
		sent []string
	)
	name := "dialecttest:ddl_" + strings.ReplaceAll(t.Name(), "/", "_")
	must(t, db.Callback().Raw().After("gorm:raw").Register(name, func(tx *gorm.DB) {
		sql := strings.TrimSpace(strings.ToUpper(tx.Statement.SQL.String()))
		for _, verb := range []string{"CREATE ", "ALTER ", "DROP "} {
			if strings.HasPrefix(sql, verb) {
				mu.Lock()
				sent = append(sent, tx.Statement.SQL.String())
				mu.Unlock()
			}
		}
	}))
	t.Cleanup(func() { _ = db.Callback().Raw().Remove(name) })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sent)
	}
}

// autoMigrateTwice: the first AutoMigrate of every model creates tables,
// IDENTITY keys, indexes, foreign keys, an interleaved table and the
// dialect's columns of every type; the second, as an application runs it
// at each start, sends no DDL at all.
func autoMigrateTwice(t *testing.T, d Dialect, db *gorm.DB, models []any) {
	sent := ddlRecorder(t, db)
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatalf("first AutoMigrate: %v", err)
	}
	first := sent()
	if len(first) < len(models) {
		t.Fatalf("first AutoMigrate sent %d DDL statements for %d models: %q", len(first), len(models), first)
	}
	if again, err := d.Statements(db, models...); err != nil || len(again) != 0 {
		t.Fatalf("statements of a second migration = %q, %v; want none", again, err)
	}
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	if second := sent()[len(first):]; len(second) != 0 {
		t.Fatalf("second AutoMigrate sent DDL: %q", second)
	}
	for _, m := range models {
		if !db.Migrator().HasTable(m) {
			t.Errorf("no table for %T", m)
		}
	}
}

// types: both rows of the dialect's Types model are written in one Create
// and read back as written (times compared in UTC); an update of every
// column to the other row's values reads back too.
func types(t *testing.T, db *gorm.DB, rows any) {
	sliceType := reflect.TypeOf(rows).Elem()
	if err := db.Create(rows).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	read := func() reflect.Value {
		t.Helper()
		got := reflect.New(sliceType)
		must(t, db.Order("id").Find(got.Interface()).Error)
		inUTC(got)
		return got.Elem()
	}
	want := reflect.ValueOf(rows).Elem()
	inUTC(want)
	compareRows(t, "after Create", read(), want)

	// Save of row 0 with the values of row 1 (NULLs and empties over
	// values), and back.
	swapped := reflect.MakeSlice(sliceType, 2, 2)
	for i := range 2 {
		swapped.Index(i).Set(want.Index(1 - i))
		swapped.Index(i).FieldByName("ID").Set(want.Index(i).FieldByName("ID"))
	}
	for i := range 2 {
		must(t, db.Save(swapped.Index(i).Addr().Interface()).Error)
	}
	want = swapped
	compareRows(t, "after Save of the swapped values", read(), want)
}

func compareRows(t *testing.T, when string, got, want reflect.Value) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("%s: read %d rows, want %d", when, got.Len(), want.Len())
	}
	for i := range want.Len() {
		compareValue(t, fmt.Sprintf("%s: row %d", when, i), got.Index(i), want.Index(i))
	}
}

// compareValue compares field by field down embedded structs, so that a
// difference names its field; the values of a field must be deeply equal
// (an empty slice is not a nil one: NULL and empty differ).
func compareValue(t *testing.T, path string, got, want reflect.Value) {
	t.Helper()
	if want.Kind() == reflect.Struct {
		for f := range want.NumField() {
			if sf := want.Type().Field(f); sf.Anonymous {
				compareValue(t, path+" "+sf.Name, got.Field(f), want.Field(f))
			} else if sf.IsExported() && !reflect.DeepEqual(got.Field(f).Interface(), want.Field(f).Interface()) {
				t.Errorf("%s %s\n got %s\nwant %s", path, sf.Name, show(got.Field(f)), show(want.Field(f)))
			}
		}
		return
	}
	if !reflect.DeepEqual(got.Interface(), want.Interface()) {
		t.Errorf("%s\n got %s\nwant %s", path, show(got), show(want))
	}
}

// show prints a value, following pointers.
func show(v reflect.Value) string {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return fmt.Sprintf("%#v", v.Interface())
}

// inUTC sets every time.Time reachable from v (through pointers, structs
// and slices) to UTC, as read values come in the driver's location.
func inUTC(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			inUTC(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			if v.CanSet() {
				v.Set(reflect.ValueOf(v.Interface().(time.Time).UTC()))
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				inUTC(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			inUTC(v.Index(i))
		}
	}
}

// commitTimestamps: an INSERT and an UPDATE of the dialect's
// commit-timestamp model write the transaction's commit time (between
// the client's clock before and after, less a second of skew), the
// second later than the first; the value is the commit's, so two rows of
// one transaction get the same one.
func commitTimestamps(t *testing.T, db *gorm.DB, model any) {
	typ := reflect.TypeOf(model).Elem()
	row := func(id int64, name string) any {
		v := reflect.New(typ)
		v.Elem().FieldByName("ID").SetInt(id)
		v.Elem().FieldByName("Name").SetString(name)
		return v.Interface()
	}
	stamp := func(id int64) time.Time {
		t.Helper()
		var ts []time.Time
		must(t, db.Model(model).Where("id = ?", id).Pluck("modified", &ts).Error)
		if len(ts) != 1 {
			t.Fatalf("row %d: %d timestamps", id, len(ts))
		}
		return ts[0]
	}
	before := time.Now().Add(-time.Second)
	must(t, db.Create(row(1, "a")).Error)
	created := stamp(1)
	if created.Before(before) || created.After(time.Now().Add(time.Second)) {
		t.Fatalf("commit timestamp of the INSERT %v, want about %v", created, before)
	}
	must(t, db.Save(row(1, "b")).Error)
	if updated := stamp(1); !updated.After(created) {
		t.Fatalf("commit timestamp after the UPDATE %v, not after %v", updated, created)
	}
	must(t, db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(row(2, "c")).Error; err != nil {
			return err
		}
		return tx.Create(row(3, "d")).Error
	}))
	if a, b := stamp(2), stamp(3); !a.Equal(b) {
		t.Fatalf("two rows of one transaction: %v and %v, want one commit timestamp", a, b)
	}
}

// identity: keys of IDENTITY columns come back from the INSERT (one row
// and a batch), distinct and positive; a key the application gives is
// kept; a duplicate of it fails with AlreadyExists.
func identity(t *testing.T, db *gorm.DB) {
	one := Account{Name: "one"}
	must(t, db.Create(&one).Error)
	batch := []Account{{Name: "b1"}, {Name: "b2"}, {Name: "b3"}}
	must(t, db.Create(&batch).Error)
	ids := []int64{one.ID, batch[0].ID, batch[1].ID, batch[2].ID}
	for i, id := range ids {
		if id <= 0 || slices.Index(ids, id) != i {
			t.Fatalf("keys %v, want distinct positive keys", ids)
		}
	}
	var names []string
	must(t, db.Model(&Account{}).Where("id IN ?", ids).Order("name").Pluck("name", &names).Error)
	if !slices.Equal(names, []string{"b1", "b2", "b3", "one"}) {
		t.Fatalf("rows by the returned keys: %q", names)
	}
	given := Account{ID: 7, Name: "given"}
	must(t, db.Create(&given).Error)
	if err := db.Create(&Account{ID: 7, Name: "dup"}).Error; status.Code(err) != codes.AlreadyExists {
		t.Fatalf("duplicate key: %v, want AlreadyExists", err)
	}
	must(t, db.Where("id IN ?", append(ids, 7)).Delete(&Account{}).Error)
}

// interleaved: a hall created with its rooms (children whose foreign key
// is part of their key), read back with Preload; a room of a hall that
// does not exist is refused; deleting the hall deletes its rooms (ON
// DELETE CASCADE).
func interleaved(t *testing.T, db *gorm.DB) {
	h := Hall{HallID: 1, Name: "main", Rooms: []Room{{Number: 1, Name: "a"}, {Number: 2, Name: "b"}}}
	must(t, db.Create(&h).Error)
	var got Hall
	must(t, db.Preload("Rooms", func(db *gorm.DB) *gorm.DB { return db.Order("number") }).First(&got, "hall_id = ?", 1).Error)
	if len(got.Rooms) != 2 || got.Rooms[0].Name != "a" || got.Rooms[1].HallID != 1 {
		t.Fatalf("hall with rooms %+v", got)
	}
	if err := db.Create(&Room{HallID: 99, Number: 1, Name: "orphan"}).Error; err == nil {
		t.Fatal("a room of a hall that does not exist was created")
	}
	must(t, db.Delete(&Hall{HallID: 1}).Error)
	var left int64
	must(t, db.Model(&Room{}).Count(&left).Error)
	if left != 0 {
		t.Fatalf("%d rooms left after their hall was deleted", left)
	}
}

// foreignKeys: the foreign key of a has-many is a constraint the engine
// enforces: a book of an author that does not exist is refused, an author
// with books cannot be deleted, and the failures leave nothing.
func foreignKeys(t *testing.T, db *gorm.DB) {
	if !db.Migrator().HasConstraint(&Author{}, "Books") {
		t.Fatal("no foreign key constraint for Author.Books")
	}
	err := db.Omit(clause.Associations).Create(&Book{ID: 900, AuthorID: 12345, Title: "orphan"}).Error
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("book of a missing author: %v, want FailedPrecondition", err)
	}
	must(t, db.Create(&Author{ID: 900, Name: "fk", Books: []Book{{ID: 901, Title: "kept"}}}).Error)
	if err := db.Delete(&Author{ID: 900}).Error; status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("delete of an author with books: %v, want FailedPrecondition", err)
	}
	var n int64
	must(t, db.Model(&Book{}).Where("id IN ?", []int64{900, 901}).Count(&n).Error)
	if n != 1 {
		t.Fatalf("%d books, want the one kept", n)
	}
	must(t, db.Delete(&Book{ID: 901}).Error)
	must(t, db.Delete(&Author{ID: 900}).Error)
}

// associations: every kind of association both ways: created with its
// parent, read with Preload (nested too) and Joins, updated by Save (the
// default changes only the foreign keys of existing children;
// FullSaveAssociations their columns too), and changed through
// Association(...).Append, Replace, Delete, Clear and Count.
func associations(t *testing.T, db *gorm.DB) {
	a := Author{ID: 500, Name: "a", Publisher: &Publisher{ID: 501, Name: "p"},
		Books:   []Book{{ID: 502, Title: "b1", Chapters: []Chapter{{Number: 1, Title: "c1"}}}, {ID: 503, Title: "b2"}},
		Profile: &Profile{ID: 504, Bio: "bio"},
		Tags:    []Tag{{ID: 505, Label: "t1"}, {ID: 506, Label: "t2"}}}
	must(t, db.Create(&a).Error)

	var got Author
	must(t, db.Preload(clause.Associations).Preload("Books.Chapters").First(&got, 500).Error)
	if got.Publisher == nil || got.Publisher.Name != "p" || len(got.Books) != 2 || got.Profile == nil ||
		got.Profile.Bio != "bio" || len(got.Tags) != 2 {
		t.Fatalf("Preload: %+v", got)
	}
	for _, b := range got.Books {
		if b.ID == 502 && (len(b.Chapters) != 1 || b.Chapters[0].Title != "c1") {
			t.Fatalf("nested Preload: book %+v", b)
		}
	}
	var joined []Author
	must(t, db.Joins("Publisher", db.Where(&Publisher{Name: "p"})).Joins("Profile").Find(&joined).Error)
	if len(joined) != 1 || joined[0].ID != 500 || joined[0].Publisher == nil || joined[0].Publisher.ID != 501 ||
		joined[0].Profile == nil || joined[0].Profile.Bio != "bio" {
		t.Fatalf("Joins: %+v", joined)
	}
	var none []Author
	must(t, db.Joins("Publisher", db.Where(&Publisher{Name: "nobody"})).Find(&none).Error)
	if len(none) != 1 || none[0].Publisher != nil {
		t.Fatalf("LEFT JOIN with an unmatched condition: %+v", none)
	}
	must(t, db.InnerJoins("Publisher", db.Where(&Publisher{Name: "nobody"})).Find(&none).Error)
	if len(none) != 0 {
		t.Fatalf("InnerJoins with an unmatched condition: %+v", none)
	}

	// Save: the default leaves existing children's columns alone.
	a.Name, a.Books[0].Title, a.Profile.Bio, a.Publisher.Name = "a2", "b1 new", "bio2", "p2"
	must(t, db.Save(&a).Error)
	wantName(t, db, &Author{}, 500, "name", "a2")
	wantBook(t, db, 502, 500, "b1")
	wantProfile(t, db, 504, 500, "bio")
	wantName(t, db, &Publisher{}, 501, "name", "p")
	must(t, db.Session(&gorm.Session{FullSaveAssociations: true}).Save(&a).Error)
	wantBook(t, db, 502, 500, "b1 new")
	wantProfile(t, db, 504, 500, "bio2")
	wantName(t, db, &Publisher{}, 501, "name", "p2")

	// has-many: Append a new book and one of another author (it moves and
	// keeps its title), Delete one, Replace the set.
	must(t, db.Create(&Author{ID: 510, Name: "other", Books: []Book{{ID: 511, Title: "moved"}}}).Error)
	// A fresh Association for each call, as GORM's documentation writes
	// it: one Association's statement carries the clauses of its last call.
	books := func() *gorm.Association { return db.Model(&a).Association("Books") }
	must(t, books().Append(&Book{ID: 507, Title: "b3"}, &Book{ID: 511}))
	if n := books().Count(); n != 4 {
		t.Fatalf("books after Append: %d", n)
	}
	wantBook(t, db, 511, 500, "moved")
	must(t, books().Delete(&Book{ID: 507}))
	wantBookIDs(t, db, 500, 502, 503, 511)
	wantBookIDs(t, db, 0, 507)
	must(t, books().Replace(&Book{ID: 502}, &Book{ID: 508, Title: "b4"}))
	wantBookIDs(t, db, 500, 502, 508)
	wantBookIDs(t, db, 0, 503, 507, 511)

	// many2many: Append, Delete (the tag stays), Replace, Clear.
	tags := func() *gorm.Association { return db.Model(&a).Association("Tags") }
	must(t, tags().Append(&Tag{ID: 512, Label: "t3"}))
	if n := tags().Count(); n != 3 {
		t.Fatalf("tags after Append: %d", n)
	}
	must(t, tags().Delete(&Tag{ID: 505}))
	wantAuthor(t, db, 500, 501, []int64{506, 512})
	wantName(t, db, &Tag{}, 505, "label", "t1")
	must(t, tags().Replace(&Tag{ID: 505}))
	wantAuthor(t, db, 500, 501, []int64{505})
	must(t, tags().Clear())
	if n := tags().Count(); n != 0 {
		t.Fatalf("tags after Clear: %d", n)
	}

	// has-one: Replace links the new profile and unlinks the old.
	must(t, db.Model(&a).Association("Profile").Replace(&Profile{ID: 513, Bio: "new"}))
	var profiles []Profile
	must(t, db.Where("author_id = ?", 500).Find(&profiles).Error)
	if len(profiles) != 1 || profiles[0].ID != 513 {
		t.Fatalf("profiles of the author after Replace: %+v", profiles)
	}

	// belongs-to: Replace sets the author's key to the new publisher,
	// Delete clears it.
	pub := func() *gorm.Association { return db.Model(&a).Association("Publisher") }
	must(t, pub().Replace(&Publisher{ID: 514, Name: "p3"}))
	wantAuthor(t, db, 500, 514, nil)
	must(t, pub().Delete(&Publisher{ID: 514}))
	var reread Author
	must(t, db.First(&reread, 500).Error)
	if reread.PublisherID != nil {
		t.Fatalf("publisher after Delete: %v", *reread.PublisherID)
	}
}

// wantBookIDs checks the books of an author (0: of none, a NULL key).
func wantBookIDs(t *testing.T, db *gorm.DB, author int64, ids ...int64) {
	t.Helper()
	q := db.Model(&Book{}).Where("id IN ?", ids)
	if author == 0 {
		q = q.Where("author_id IS NULL")
	} else {
		q = q.Where("author_id = ?", author)
	}
	var got []int64
	must(t, q.Order("id").Pluck("id", &got).Error)
	if !slices.Equal(got, ids) {
		t.Fatalf("books of author %d among %v: %v", author, ids, got)
	}
}

// transactions: writes of a transaction are visible inside it and gone
// after a rollback on the server: a Transaction whose function returns an
// error, one whose statement fails (the error keeps its gRPC code), and a
// manual Begin ... Rollback; Begin ... Commit keeps them.
func transactions(t *testing.T, db *gorm.DB) {
	keep := Account{Name: "keep", Balance: 10}
	must(t, db.Create(&keep).Error)
	count := func(name string) int64 {
		t.Helper()
		var n int64
		must(t, db.Model(&Account{}).Where("name = ?", name).Count(&n).Error)
		return n
	}
	stop := errors.New("stop")
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{Name: "gone"}).Error; err != nil {
			return err
		}
		if err := tx.Model(&keep).Update("balance", 99).Error; err != nil {
			return err
		}
		var inside Account
		if err := tx.First(&inside, keep.ID).Error; err != nil || inside.Balance != 99 {
			return fmt.Errorf("inside the transaction: %+v, %v", inside, err)
		}
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Transaction = %v, want the function's error", err)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{Name: "gone"}).Error; err != nil {
			return err
		}
		return tx.Create(&Account{ID: keep.ID, Name: "dup"}).Error
	})
	if status.Code(err) != codes.AlreadyExists {
		t.Fatalf("Transaction with a duplicate key: %v, want AlreadyExists", err)
	}
	tx := db.Begin()
	must(t, tx.Error)
	must(t, tx.Create(&Account{Name: "gone"}).Error)
	must(t, tx.Model(&keep).Update("balance", gorm.Expr("balance + ?", 5)).Error)
	if err := tx.Create(&Account{Name: strings.Repeat("x", 50)}).Error; err == nil {
		t.Fatal("a name longer than its column was written")
	}
	must(t, tx.Rollback().Error)
	if n := count("gone"); n != 0 {
		t.Fatalf("%d rolled-back rows visible", n)
	}
	var after Account
	must(t, db.First(&after, keep.ID).Error)
	if after.Balance != 10 {
		t.Fatalf("balance after the rollbacks %d, want 10", after.Balance)
	}
	tx = db.Begin()
	must(t, tx.Create(&Account{Name: "committed"}).Error)
	must(t, tx.Model(&keep).Update("balance", gorm.Expr("balance + ?", 5)).Error)
	must(t, tx.Commit().Error)
	must(t, db.First(&after, keep.ID).Error)
	if n := count("committed"); n != 1 || after.Balance != 15 {
		t.Fatalf("after Commit: %d rows, balance %d", n, after.Balance)
	}
}

// runTransactionAborts: go-gorm-spanner's aborted-transaction pattern on
// a real engine. The first RunTransaction reads a row; inside it, a
// second RunTransaction reads and updates the same row and commits; the
// engine aborts the first (on the emulator, the newer transaction wins),
// whose whole function runs again and sees the second's write. Both
// updates are kept, once each.
func runTransactionAborts(t *testing.T, d Dialect, db *gorm.DB) {
	acc := Account{Name: "start"}
	must(t, db.Create(&acc).Error)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var first, second int
	appendName := func(tx *gorm.DB, suffix string) error {
		var a Account
		if err := tx.First(&a, acc.ID).Error; err != nil {
			return err
		}
		return tx.Model(&a).Update("name", a.Name+suffix).Error
	}
	err := d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		first++
		var a Account
		if err := tx.First(&a, acc.ID).Error; err != nil {
			return err
		}
		if first == 1 {
			if err := d.RunTransaction(ctx, db, func(tx2 *gorm.DB) error {
				second++
				return appendName(tx2, " second")
			}); err != nil {
				return fmt.Errorf("second transaction: %w", err)
			}
		}
		return tx.Model(&a).Update("name", a.Name+" first").Error
	})
	if err != nil {
		t.Fatalf("RunTransaction: %v", err)
	}
	// The emulator aborts the newcomer or, at random, the holder; the
	// first has read the row the second changed, so it must run again.
	if first < 2 || second < 1 {
		t.Errorf("attempts: first %d, second %d; want the first at least twice", first, second)
	}
	wantName(t, db, &Account{}, acc.ID, "name", "start second first")
}

// batches: CreateInBatches writes every row in batches and fills their
// IDENTITY keys; FindInBatches visits them in batches and updates each
// batch; a DML batch (START BATCH DML ... RUN BATCH) in RunTransaction
// and on one connection applies every statement; one with a failing
// statement, or ended with ABORT BATCH, applies none.
func batches(t *testing.T, d Dialect, db *gorm.DB) {
	items := make([]Item, 25)
	for i := range items {
		items[i].N = int64(i)
	}
	res := db.CreateInBatches(&items, 10)
	must(t, res.Error)
	if res.RowsAffected != 25 {
		t.Fatalf("CreateInBatches: %d rows", res.RowsAffected)
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.ID
		if it.ID <= 0 || slices.Index(ids[:i], it.ID) >= 0 {
			t.Fatalf("keys after CreateInBatches: %v", ids[:i+1])
		}
	}
	var sizes []int
	var found []Item
	must(t, db.FindInBatches(&found, 10, func(tx *gorm.DB, _ int) error {
		sizes = append(sizes, len(found))
		for i := range found {
			found[i].Done = true
		}
		return tx.Save(&found).Error
	}).Error)
	if !slices.Equal(sizes, []int{10, 10, 5}) {
		t.Fatalf("FindInBatches batch sizes %v", sizes)
	}
	var done int64
	must(t, db.Model(&Item{}).Where("done").Count(&done).Error)
	if done != 25 {
		t.Fatalf("%d items done after FindInBatches", done)
	}

	setN := func(tx *gorm.DB, n int64, ids ...int64) error {
		for _, id := range ids {
			if err := tx.Model(&Item{ID: id}).Update("n", n).Error; err != nil {
				return err
			}
		}
		return nil
	}
	batch := func(tx *gorm.DB, end string, fn func(*gorm.DB) error) error {
		if err := tx.Exec("START BATCH DML").Error; err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Exec(end).Error
	}
	nOf := func(id int64) int64 {
		t.Helper()
		var it Item
		must(t, db.First(&it, id).Error)
		return it.N
	}
	ctx := context.Background()
	must(t, d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		return batch(tx, "RUN BATCH", func(tx *gorm.DB) error { return setN(tx, 100, ids[0], ids[1], ids[2]) })
	}))
	if nOf(ids[0]) != 100 || nOf(ids[2]) != 100 {
		t.Fatal("the DML batch in RunTransaction was not applied")
	}
	must(t, db.Session(&gorm.Session{SkipDefaultTransaction: true}).Connection(func(tx *gorm.DB) error {
		// Connection hands fc a handle whose conditions accumulate from
		// one statement to the next (Transaction's do not): a Session of
		// it starts each statement afresh on the same connection.
		return batch(tx.Session(&gorm.Session{}), "RUN BATCH", func(tx *gorm.DB) error { return setN(tx, 200, ids[3], ids[4]) })
	}))
	if nOf(ids[3]) != 200 || nOf(ids[4]) != 200 {
		t.Fatal("the DML batch on a connection was not applied")
	}
	err := d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		return batch(tx, "RUN BATCH", func(tx *gorm.DB) error {
			if err := setN(tx, 300, ids[5]); err != nil {
				return err
			}
			return tx.Exec("INSERT INTO items (id, n, done) VALUES (?, 0, false)", ids[6]).Error
		})
	})
	if status.Code(err) != codes.AlreadyExists {
		t.Fatalf("DML batch with a duplicate key: %v, want AlreadyExists", err)
	}
	if nOf(ids[5]) == 300 {
		t.Fatal("a statement of the failed batch was applied")
	}
	must(t, d.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		return batch(tx, "ABORT BATCH", func(tx *gorm.DB) error { return setN(tx, 400, ids[7]) })
	}))
	if nOf(ids[7]) == 400 {
		t.Fatal("a statement of an aborted batch was applied")
	}
}
