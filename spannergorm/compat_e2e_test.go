package spannergorm_test

import (
	"database/sql/driver"
	"fmt"
	"slices"
	"testing"

	"cloud.google.com/go/spanner"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/spannerfasttest"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// Models written for go-gorm-spanner declare ARRAY columns with named
// slice types of their own: a slice of spanner.Null* values with only a
// Valuer (database/sql assigns the driver's slice to it), or a slice of
// native values with a Scan that accepts the driver's []spanner.Null*.
// These must keep working when the driver is spannerfast.

type nullStrings []spanner.NullString

func (a nullStrings) Value() (driver.Value, error) { return []spanner.NullString(a), nil }
func (nullStrings) GormDataType() string           { return "ARRAY<STRING(MAX)>" }

type int64s []int64

func (a int64s) Value() (driver.Value, error) { return []int64(a), nil }
func (int64s) GormDataType() string           { return "ARRAY<INT64>" }

func (a *int64s) Scan(v any) error {
	src, ok := v.([]spanner.NullInt64)
	if !ok {
		return fmt.Errorf("int64s: cannot scan %T", v)
	}
	out := make(int64s, len(src))
	for i, e := range src {
		out[i] = e.Int64
	}
	*a = out
	return nil
}

type Track struct {
	ID      int64 `gorm:"primaryKey;autoIncrement:false"`
	Labels  nullStrings
	Lengths int64s
}

// TestE2EDriverNameAndNamedArrays opens the dialector the way
// go-gorm-spanner users configure it (DriverName and DSN) and round-trips
// named array types of the go-gorm-spanner kind.
func TestE2EDriverNameAndNamedArrays(t *testing.T) {
	srv, err := spannerfasttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	db, err := gorm.Open(spannergorm.New(spannergorm.Config{DriverName: "spannerfast", DSN: srv.DSN()}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AutoMigrate(&Track{}); err != nil {
		t.Fatal(err)
	}
	in := Track{ID: 1, Labels: nullStrings{{StringVal: "a", Valid: true}, {}}, Lengths: int64s{180, 240}}
	if err := db.Create(&in).Error; err != nil {
		t.Fatal(err)
	}
	var out Track
	if err := db.First(&out, 1).Error; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Labels, in.Labels) || !slices.Equal(out.Lengths, in.Lengths) {
		t.Fatalf("read back %+v, wrote %+v", out, in)
	}
	if _, err := gorm.Open(spannergorm.New(spannergorm.Config{DriverName: "nosuchdriver", DSN: srv.DSN()}),
		&gorm.Config{Logger: logger.Discard}); err == nil {
		t.Fatal("an unknown DriverName opened")
	}
}
