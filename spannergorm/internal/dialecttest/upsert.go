package dialecttest

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Author has every kind of association, with keys the application
// chooses, so a child may already exist: it belongs to a Publisher, has
// many Books, has one Profile and many Tags.
type Author struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	Name        string
	PublisherID *int64
	Publisher   *Publisher
	Books       []Book
	Profile     *Profile
	Tags        []Tag `gorm:"many2many:author_tags"`
}

type Publisher struct {
	ID   int64 `gorm:"primaryKey;autoIncrement:false"`
	Name string
}

type Book struct {
	ID       int64 `gorm:"primaryKey;autoIncrement:false"`
	AuthorID int64
	Title    string `gorm:"size:20"`
	Chapters []Chapter
}

// Chapter's key starts with its book's, as an interleaved table's does:
// GORM's save assigns the foreign key, a key column.
type Chapter struct {
	BookID int64 `gorm:"primaryKey;autoIncrement:false"`
	Number int64 `gorm:"primaryKey;autoIncrement:false"`
	Title  string
}

type Profile struct {
	ID       int64 `gorm:"primaryKey;autoIncrement:false"`
	AuthorID int64
	Bio      string
}

type Tag struct {
	ID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Label string
}

// Band and Member have IDENTITY keys: new children whose keys the
// database chooses.
type Band struct {
	ID      int64
	Name    string
	Members []Member
}

type Member struct {
	ID     int64
	BandID int64
	Name   string
}

// Seat has a key of two columns.
type Seat struct {
	Hall   int64 `gorm:"primaryKey;autoIncrement:false"`
	Seat   int64 `gorm:"primaryKey;autoIncrement:false"`
	Holder string
	Price  int64
}

// Models are the models to migrate before Run.
func Models() []any {
	return []any{&Publisher{}, &Author{}, &Book{}, &Chapter{}, &Profile{}, &Tag{}, &Band{}, &Member{}, &Seat{}}
}

// Run runs the scenario; open returns a GORM handle on a new database
// where Models are migrated (each subtest gets its own: the emulator runs
// one read-write transaction per database at a time).
func Run(t *testing.T, open func(t *testing.T) *gorm.DB) {
	t.Run("DefaultSaves", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		seed(t, db)
		if err := db.Create(newAuthor(1)).Error; err != nil {
			t.Fatalf("Create with associations: %v", err)
		}
		// Existing children get the foreign key and nothing else; new ones
		// are inserted; belongs-to and many2many rows that exist are kept.
		wantBook(t, db, 10, 1, "old")
		wantBook(t, db, 11, 1, "b")
		wantProfile(t, db, 20, 1, "old bio")
		wantName(t, db, &Publisher{}, 40, "name", "old pub")
		wantName(t, db, &Tag{}, 30, "label", "old tag")
		wantName(t, db, &Tag{}, 31, "label", "t")
		wantAuthor(t, db, 1, 40, []int64{30, 31})
		wantChapters(t, db, "old ch", "two")
	})
	t.Run("FullSaveAssociations", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		seed(t, db)
		if err := db.Session(&gorm.Session{FullSaveAssociations: true}).Create(newAuthor(1)).Error; err != nil {
			t.Fatalf("Create with FullSaveAssociations: %v", err)
		}
		wantBook(t, db, 10, 1, "new")
		wantBook(t, db, 11, 1, "b")
		wantProfile(t, db, 20, 1, "new bio")
		wantName(t, db, &Publisher{}, 40, "name", "new pub")
		wantName(t, db, &Tag{}, 30, "label", "new tag")
		wantAuthor(t, db, 1, 40, []int64{30, 31})
		wantChapters(t, db, "new ch", "two")
	})
	t.Run("AssignmentColumns", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		seed(t, db)
		must(t, db.Create(&Author{ID: 98, Name: "other"}).Error)
		books := []Book{{ID: 10, AuthorID: 98, Title: "x"}, {ID: 12, AuthorID: 98, Title: "y"}}
		oc := clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"title"})}
		res := db.Clauses(oc).Create(&books)
		if res.Error != nil {
			t.Fatalf("upsert with AssignmentColumns: %v", res.Error)
		}
		// One row updated, one inserted: PostgreSQL's ON CONFLICT DO
		// UPDATE reports both.
		wantRowsAffected(t, "AssignmentColumns", res, 2)
		wantBook(t, db, 10, 99, "x") // title changed, author kept
		wantBook(t, db, 12, 98, "y")
		oc = clause.OnConflict{DoUpdates: clause.Assignments(map[string]any{"title": "fixed"})}
		res = db.Clauses(oc).Create(&[]Book{{ID: 10, AuthorID: 98, Title: "z"}, {ID: 14, AuthorID: 98, Title: "w"}})
		if res.Error != nil {
			t.Fatalf("upsert with Assignments: %v", res.Error)
		}
		wantRowsAffected(t, "Assignments", res, 2)
		wantBook(t, db, 10, 99, "fixed")
		wantBook(t, db, 14, 98, "w")
	})
	t.Run("DryRunText", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		seed(t, db)
		books := []Book{{ID: 10, AuthorID: 99, Title: "x"}, {ID: 12, AuthorID: 99, Title: "y"}}
		oc := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"title"})}
		text := db.ToSQL(func(tx *gorm.DB) *gorm.DB { return tx.Clauses(oc).Create(&books) })
		// One UPDATE per distinct title, then the INSERT.
		if !strings.HasPrefix(text, "UPDATE ") || strings.Count(text, "; ") != 2 || !strings.Contains(text, "; INSERT ") {
			t.Fatalf("ToSQL = %q, want two UPDATEs and the INSERT", text)
		}
		wantBook(t, db, 10, 99, "old") // the dry run sent nothing
		// The text is what Create sends: run as it is, it upserts.
		must(t, db.Exec(text).Error)
		wantBook(t, db, 10, 99, "x")
		wantBook(t, db, 12, 99, "y")
	})
	t.Run("CompositeKey", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		must(t, db.Create(&[]Seat{{Hall: 1, Seat: 1, Holder: "a", Price: 5}, {Hall: 1, Seat: 2, Holder: "b", Price: 5}}).Error)
		seats := []Seat{{Hall: 1, Seat: 1, Holder: "x", Price: 9}, {Hall: 1, Seat: 2, Holder: "y", Price: 9}, {Hall: 2, Seat: 1, Holder: "z", Price: 9}}
		oc := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"holder"})}
		res := db.Clauses(oc).Create(&seats)
		if res.Error != nil {
			t.Fatalf("upsert on a two-column key: %v", res.Error)
		}
		wantRowsAffected(t, "two-column key", res, 3)
		var got []Seat
		must(t, db.Order("hall, seat").Find(&got).Error)
		want := []Seat{{1, 1, "x", 5}, {1, 2, "y", 5}, {2, 1, "z", 9}}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("seats %+v, want %+v", got, want)
		}
	})
	t.Run("FailureLeavesNothing", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		seed(t, db)
		a := Author{ID: 3, Name: "c", Books: []Book{{ID: 10}, {ID: 13, Title: strings.Repeat("x", 30)}}}
		err := db.Create(&a).Error
		if err == nil {
			t.Fatal("Create of a book with a title longer than its column succeeded")
		}
		if status.Code(err) == codes.Unimplemented {
			t.Fatalf("Create failed before writing: %v", err)
		}
		wantBook(t, db, 10, 99, "old")
		var n int64
		must(t, db.Model(&Author{}).Where("id = ?", 3).Count(&n).Error)
		var books int64
		must(t, db.Model(&Book{}).Where("id = ?", 13).Count(&books).Error)
		if n != 0 || books != 0 {
			t.Fatalf("after the failed Create: %d authors 3, %d books 13; want none", n, books)
		}
	})
	t.Run("IdentityChildren", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		b := Band{Name: "b", Members: []Member{{Name: "x"}, {Name: "y"}}}
		if err := db.Create(&b).Error; err != nil {
			t.Fatalf("Create with new children: %v", err)
		}
		// A batch where one row gives its key and one leaves it to the
		// database (DEFAULT): only the first can exist.
		mixed := []Member{{ID: b.Members[0].ID, BandID: b.ID, Name: "x2"}, {BandID: b.ID, Name: "z"}}
		oc := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"name"})}
		res := db.Clauses(oc).Create(&mixed)
		if res.Error != nil {
			t.Fatalf("upsert of a row with its key and a row without: %v", res.Error)
		}
		wantRowsAffected(t, "mixed keys", res, 2)
		if mixed[1].ID == 0 {
			t.Errorf("new member's key not returned: %+v", mixed)
		}
		var got Band
		must(t, db.Preload("Members", func(db *gorm.DB) *gorm.DB { return db.Order("name") }).First(&got, b.ID).Error)
		if len(got.Members) != 3 || got.Members[0].Name != "x2" || got.Members[2].Name != "z" {
			t.Fatalf("members after the mixed upsert %+v", got.Members)
		}
		if b.Members[0].ID == 0 || b.Members[0].BandID != b.ID || got.Members[0].BandID != b.ID {
			t.Fatalf("band %+v, members %+v", got, b.Members)
		}
	})
}

// seed writes the rows that exist before the Create: author 99 owns book
// 10 and profile 20; publisher 40 and tag 30 exist.
func seed(t *testing.T, db *gorm.DB) {
	t.Helper()
	must(t, db.Create(&Publisher{ID: 40, Name: "old pub"}).Error)
	must(t, db.Create(&Author{ID: 99, Name: "owner"}).Error)
	must(t, db.Omit(clause.Associations).Create(&Book{ID: 10, AuthorID: 99, Title: "old"}).Error)
	must(t, db.Create(&Chapter{BookID: 10, Number: 1, Title: "old ch"}).Error)
	must(t, db.Omit(clause.Associations).Create(&Profile{ID: 20, AuthorID: 99, Bio: "old bio"}).Error)
	must(t, db.Create(&Tag{ID: 30, Label: "old tag"}).Error)
}

// newAuthor returns author id with one existing and one new row in each
// association.
func newAuthor(id int64) *Author {
	return &Author{
		ID: id, Name: "a",
		Publisher: &Publisher{ID: 40, Name: "new pub"},
		Books: []Book{{ID: 10, Title: "new", Chapters: []Chapter{{Number: 1, Title: "new ch"}, {Number: 2, Title: "two"}}},
			{ID: 11, Title: "b"}},
		Profile: &Profile{ID: 20, Bio: "new bio"},
		Tags:    []Tag{{ID: 30, Label: "new tag"}, {ID: 31, Label: "t"}},
	}
}

// wantRowsAffected checks a partial upsert's RowsAffected: every row
// inserted or updated, as PostgreSQL counts ON CONFLICT DO UPDATE.
func wantRowsAffected(t *testing.T, what string, res *gorm.DB, want int64) {
	t.Helper()
	if res.RowsAffected != want {
		t.Errorf("%s: RowsAffected = %d, want %d (rows inserted + rows updated)", what, res.RowsAffected, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantBook(t *testing.T, db *gorm.DB, id, author int64, title string) {
	t.Helper()
	var b Book
	if err := db.First(&b, id).Error; err != nil || b.AuthorID != author || b.Title != title {
		t.Errorf("book %d = %+v, %v; want author %d, title %q", id, b, err, author, title)
	}
}

func wantProfile(t *testing.T, db *gorm.DB, id, author int64, bio string) {
	t.Helper()
	var p Profile
	if err := db.First(&p, id).Error; err != nil || p.AuthorID != author || p.Bio != bio {
		t.Errorf("profile %d = %+v, %v; want author %d, bio %q", id, p, err, author, bio)
	}
}

func wantName(t *testing.T, db *gorm.DB, model any, id int64, column, want string) {
	t.Helper()
	var got []string
	if err := db.Model(model).Where("id = ?", id).Pluck(column, &got).Error; err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("%T %d %s = %q, %v; want %q", model, id, column, got, err, want)
	}
}

func wantAuthor(t *testing.T, db *gorm.DB, id, publisher int64, tags []int64) {
	t.Helper()
	var a Author
	if err := db.Preload("Tags", func(db *gorm.DB) *gorm.DB { return db.Order("id") }).First(&a, id).Error; err != nil {
		t.Fatalf("author %d: %v", id, err)
	}
	if a.PublisherID == nil || *a.PublisherID != publisher {
		t.Errorf("author %d publisher %v, want %d", id, a.PublisherID, publisher)
	}
	var got []int64
	for _, tag := range a.Tags {
		got = append(got, tag.ID)
	}
	if len(got) != len(tags) || (len(got) > 0 && (got[0] != tags[0] || got[len(got)-1] != tags[len(tags)-1])) {
		t.Errorf("author %d tags %v, want %v", id, got, tags)
	}
}

// wantChapters checks the titles of book 10's chapters 1 and 2.
func wantChapters(t *testing.T, db *gorm.DB, titles ...string) {
	t.Helper()
	var got []Chapter
	must(t, db.Where("book_id = ?", 10).Order("number").Find(&got).Error)
	if len(got) != len(titles) {
		t.Fatalf("chapters %+v, want titles %q", got, titles)
	}
	for i, c := range got {
		if c.Title != titles[i] {
			t.Errorf("chapter %d title %q, want %q", c.Number, c.Title, titles[i])
		}
	}
}
