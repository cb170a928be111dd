package dialecttest

import (
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

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
