package dialecttest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
)

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
