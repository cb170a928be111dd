package spannergorm_test

import (
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/spannergorm"
)

// Venue has a unique field, a NULL_FILTERED index and a commit-timestamp
// column; Seat is interleaved in it.
type Venue struct {
	ID       int64  `gorm:"primaryKey;autoIncrement:false"`
	Code     string `gorm:"size:8;unique"`
	City     string `gorm:"index:idx_venues_city,class:NULL_FILTERED"`
	Modified spannergorm.CommitTimestamp
}

type Seat struct {
	VenueID int64 `gorm:"primaryKey;autoIncrement:false"`
	No      int64 `gorm:"primaryKey;autoIncrement:false"`
	Row     string
}

func (Seat) InterleaveInParent() spannergorm.Interleave {
	return spannergorm.Interleave{Parent: "venues", OnDeleteCascade: true}
}

// TestE2EInterleaveIndexesCommitTimestamp migrates an interleaved table and
// the two index classes, and writes a commit timestamp. (The engine does
// not enforce unique indexes, so a duplicate is not tried here.)
func TestE2EInterleaveIndexesCommitTimestamp(t *testing.T) {
	db := openEmbedded(t)
	if err := db.AutoMigrate(&Venue{}, &Seat{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	m := db.Migrator()
	if !m.HasIndex(&Venue{}, "idx_venues_city") || !m.HasIndex(&Venue{}, "uni_venues_code") {
		t.Fatal("indexes missing")
	}
	before := time.Now().Add(-time.Second)
	if err := db.Create(&Venue{ID: 1, Code: "AMS", City: "Amsterdam"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&[]Seat{{VenueID: 1, No: 1, Row: "A"}, {VenueID: 1, No: 2, Row: "A"}}).Error; err != nil {
		t.Fatal(err)
	}
	var v Venue
	if err := db.First(&v, 1).Error; err != nil {
		t.Fatal(err)
	}
	if !v.Modified.Timestamp.Valid || v.Modified.Timestamp.Time.Before(before) {
		t.Fatalf("commit timestamp = %+v", v.Modified)
	}
	if err := db.Model(&v).Update("city", "Rotterdam").Error; err != nil {
		t.Fatal(err)
	}
	var seats int64
	if err := db.Model(&Seat{}).Where("venue_id = ?", 1).Count(&seats).Error; err != nil || seats != 2 {
		t.Fatalf("seats = %d, %v", seats, err)
	}
}
