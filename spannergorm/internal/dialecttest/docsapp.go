package dialecttest

import (
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// The models of DocsApp, as GORM's documentation writes them: gorm.Model
// (a uint key, timestamps, soft delete), a belongs-to Company, has-one
// has-many CreditCards, a has-one Address and a
// many2many Languages, with no Spanner-specific tag anywhere.
type User struct {
	gorm.Model
	Name        string
	Email       *string
	Age         uint8
	Birthday    *time.Time
	CompanyID   int
	Company     Company
	CreditCards []CreditCard
	Address     Address
	Languages   []Language `gorm:"many2many:user_languages;"`
}

type Company struct {
	ID   int
	Name string
}

type CreditCard struct {
	gorm.Model
	Number string
	UserID uint
}

type Address struct {
	gorm.Model
	City   string
	UserID uint
}

type Language struct {
	gorm.Model
	Name string
}

// BeforeCreate is a hook, as the documentation's examples have.
func (u *User) BeforeCreate(*gorm.DB) error {
	if u.Name == "" {
		return errors.New("a user needs a name")
	}
	return nil
}

// DocsApp is an application written the way GORM's documentation teaches
// (https://gorm.io/docs): AutoMigrate at each start, Create with
// associations (the default save, no FullSaveAssociations), batch
// inserts, the query forms of "Query" and "Advanced Query", Preload and
// Joins, Update/Updates/Save, Association mode, soft and permanent
// Delete, hooks, Transaction and manual Begin/Rollback, Raw and Scan.
// open gives a handle on a new, empty database with the documentation's
// configuration for it (PrepareStmt: true, as the go-gorm-spanner samples
// set too). Nothing in it is written for Spanner.
func DocsApp(t *testing.T, db *gorm.DB) {
	models := []any{&User{}, &Company{}, &CreditCard{}, &Address{}, &Language{}}
	for range 2 { // an application migrates at every start
		must(t, db.AutoMigrate(models...))
	}

	// Create
	email, birthday := "jinzhu@example.org", time.Date(2000, 1, 2, 0, 0, 0, 0, time.UTC)
	user := User{Name: "Jinzhu", Email: &email, Age: 18, Birthday: &birthday,
		Company:     Company{Name: "ACME"},
		CreditCards: []CreditCard{{Number: "411111111111"}, {Number: "422222222222"}},
		Address:     Address{City: "Hangzhou"},
		Languages:   []Language{{Name: "ZH"}, {Name: "EN"}}}
	result := db.Create(&user)
	if result.Error != nil || result.RowsAffected != 1 || user.ID == 0 || user.CompanyID == 0 ||
		user.CreditCards[1].ID == 0 || user.CreditCards[1].UserID != user.ID || user.Languages[0].ID == 0 {
		t.Fatalf("Create: %v, %d rows, %+v", result.Error, result.RowsAffected, user)
	}
	users := []*User{{Name: "Jinzhu 2", Age: 20, Company: user.Company}, {Name: "Jackson", Age: 30, Company: Company{Name: "Initech"}}}
	must(t, db.Create(users).Error)
	// A user's CompanyID is an int, not a pointer: each needs a company
	// (the foreign key), on Spanner as on any database that enforces it.
	more := []User{{Name: "a", Age: 1, CompanyID: user.CompanyID}, {Name: "b", Age: 2, CompanyID: user.CompanyID},
		{Name: "c", Age: 3, CompanyID: user.CompanyID}}
	must(t, db.CreateInBatches(more, 2).Error)
	if err := db.Create(&User{CompanyID: user.CompanyID}).Error; err == nil {
		t.Fatal("the BeforeCreate hook did not stop a user without a name")
	}

	// Query
	var first User
	must(t, db.First(&first, user.ID).Error)
	if first.Name != "Jinzhu" || first.Email == nil || *first.Email != email || first.Birthday == nil ||
		!first.Birthday.Equal(birthday) || first.CreatedAt.IsZero() {
		t.Fatalf("First: %+v", first)
	}
	var byName User
	must(t, db.Where("name = ?", "Jinzhu").First(&byName).Error)
	var found []User
	must(t, db.Where("name IN ?", []string{"Jinzhu", "Jinzhu 2"}).Find(&found).Error)
	if byName.ID != user.ID || len(found) != 2 {
		t.Fatalf("Where: %+v, %d users", byName, len(found))
	}
	must(t, db.Where(&User{Name: "Jinzhu", Age: 18}).First(&byName).Error)
	must(t, db.Where(map[string]any{"name": "Jinzhu 2", "age": 20}).Find(&found).Error)
	if len(found) != 1 {
		t.Fatalf("struct and map conditions: %+v", found)
	}
	must(t, db.Where("name LIKE ?", "%Jin%").Or("age > ?", 25).Order("age desc").Limit(10).Find(&found).Error)
	if len(found) != 3 || found[0].Name != "Jackson" {
		t.Fatalf("Or/Order/Limit: %+v", found)
	}
	var count int64
	must(t, db.Model(&User{}).Where("age < ?", 10).Count(&count).Error)
	if count != 3 {
		t.Fatalf("Count: %d", count)
	}
	var last User
	must(t, db.Last(&last).Error)
	if err := db.First(&User{}, "name = ?", "nobody").Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Fatalf("First of nothing: %v", err)
	}
	type APIUser struct {
		ID   uint
		Name string
	}
	var small []APIUser
	must(t, db.Model(&User{}).Where("age >= ?", 18).Order("name").Find(&small).Error)
	if len(small) != 3 || small[0].Name != "Jackson" {
		t.Fatalf("smart select: %+v", small)
	}
	var totals []struct {
		CompanyID int
		Total     int64
	}
	must(t, db.Model(&User{}).Select("company_id, sum(age) as total").Where("company_id > ?", 0).
		Group("company_id").Having("sum(age) > ?", 30).Find(&totals).Error)
	if len(totals) != 1 || totals[0].CompanyID != user.CompanyID || totals[0].Total != 44 {
		t.Fatalf("Group/Having: %+v", totals)
	}

	var avg []string
	must(t, db.Model(&User{}).Where("age > (?)", db.Model(&User{}).Select("AVG(age)")).Pluck("name", &avg).Error)
	if len(avg) != 3 {
		t.Fatalf("subquery: %q", avg)
	}
	var once, again User
	must(t, db.Where(User{Name: "non_existing"}).Attrs(User{Age: 20, CompanyID: user.CompanyID}).FirstOrCreate(&once).Error)
	must(t, db.Where(User{Name: "non_existing"}).Attrs(User{Age: 30}).FirstOrCreate(&again).Error)
	if once.ID == 0 || again.ID != once.ID || again.Age != 20 {
		t.Fatalf("FirstOrCreate: %+v then %+v", once, again)
	}
	// (The documentation's locking, clause.Locking{Strength: "UPDATE"},
	// renders SELECT ... FOR UPDATE, which Spanner takes in both dialects
	// but the emulator refuses in both, so it is not run here:
	// SelectForUpdate checks it on the fake server.)

	// Upsert (the documentation's "On Conflict" examples)
	must(t, db.Clauses(clause.OnConflict{DoNothing: true}).Create(&Company{ID: user.CompanyID, Name: "ignored"}).Error)
	must(t, db.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns([]string{"name"}),
	}).Create(&[]Company{{ID: user.CompanyID, Name: "ACME Corp"}, {ID: 77, Name: "New"}}).Error)
	must(t, db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&Company{ID: 77, Name: "Newer"}).Error)
	var companies []Company
	must(t, db.Where("id IN ?", []int{user.CompanyID, 77}).Order("name").Find(&companies).Error)
	if len(companies) != 2 || companies[0].Name != "ACME Corp" || companies[1].Name != "Newer" {
		t.Fatalf("upserts: %+v", companies)
	}

	// Preload and Joins
	var loaded []User
	must(t, db.Preload("CreditCards").Preload("Languages").Preload("Company").Preload("Address").
		Where("id = ?", user.ID).Find(&loaded).Error)
	if len(loaded) != 1 || len(loaded[0].CreditCards) != 2 || len(loaded[0].Languages) != 2 ||
		loaded[0].Company.Name != "ACME Corp" || loaded[0].Address.City != "Hangzhou" {
		t.Fatalf("Preload: %+v", loaded)
	}
	var joined []User
	must(t, db.Joins("Company").Where("age >= ?", 18).Order("age").Find(&joined).Error)
	if len(joined) != 4 || joined[0].Company.Name != "ACME Corp" || joined[3].Company.Name != "Initech" {
		t.Fatalf("Joins: %+v", joined)
	}

	// Update
	must(t, db.Model(&user).Update("name", "hello").Error)
	must(t, db.Model(&user).Updates(User{Name: "hello", Age: 19}).Error)
	must(t, db.Model(&user).Updates(map[string]any{"age": gorm.Expr("age + ?", 1)}).Error)
	must(t, db.Model(&User{}).Where("age < ?", 10).Update("name", "young").Error)
	must(t, db.First(&first, user.ID).Error)
	if first.Name != "hello" || first.Age != 20 {
		t.Fatalf("after Update and Updates: %+v", first)
	}
	user.Name = "jinzhu 2" // Save writes every field: user.Age is still 19
	must(t, db.Save(&user).Error)
	must(t, db.First(&first, user.ID).Error)
	if first.Name != "jinzhu 2" || first.Age != 19 || !first.UpdatedAt.After(first.CreatedAt) {
		t.Fatalf("after the updates: %+v", first)
	}

	// Association mode
	must(t, db.Model(&user).Association("Languages").Append(&Language{Name: "DE"}))
	if n := db.Model(&user).Association("Languages").Count(); n != 3 {
		t.Fatalf("languages after Append: %d", n)
	}
	must(t, db.Model(&user).Association("CreditCards").Replace([]CreditCard{{Number: "433333333333"}}))
	var cards []CreditCard
	must(t, db.Model(&user).Association("CreditCards").Find(&cards))
	if len(cards) != 1 || cards[0].Number != "433333333333" {
		t.Fatalf("credit cards after Replace: %+v", cards)
	}

	// Transactions
	errRollback := errors.New("rollback")
	if err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&User{Name: "Giraffe", CompanyID: user.CompanyID}).Error; err != nil {
			return err
		}
		return errRollback
	}); !errors.Is(err, errRollback) {
		t.Fatalf("Transaction: %v", err)
	}
	must(t, db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&User{Name: "Lion", CompanyID: user.CompanyID}).Error; err != nil {
			return err
		}
		return tx.Model(&user).Update("age", 21).Error
	}))
	tx := db.Begin()
	must(t, tx.Create(&User{Name: "Zebra", CompanyID: user.CompanyID}).Error)
	must(t, tx.Rollback().Error)
	var animals []string
	must(t, db.Model(&User{}).Where("name IN ?", []string{"Giraffe", "Lion", "Zebra"}).Pluck("name", &animals).Error)
	if len(animals) != 1 || animals[0] != "Lion" {
		t.Fatalf("after the transactions: %q", animals)
	}

	// Raw SQL
	var raw struct {
		Name string
		Age  int
	}
	must(t, db.Raw("SELECT name, age FROM users WHERE id = ?", user.ID).Scan(&raw).Error)
	if raw.Name != "jinzhu 2" || raw.Age != 21 {
		t.Fatalf("Raw: %+v", raw)
	}

	// Global update and delete, which GORM allows only when asked
	if err := db.Model(&Company{}).Update("name", "x").Error; !errors.Is(err, gorm.ErrMissingWhereClause) {
		t.Fatalf("update without conditions: %v", err)
	}
	must(t, db.Session(&gorm.Session{AllowGlobalUpdate: true}).Model(&Language{}).Update("name", "any").Error)
	must(t, db.Session(&gorm.Session{AllowGlobalUpdate: true}).Model(&Company{}).Update("name", "Same").Error)
	var names []string
	must(t, db.Model(&Company{}).Distinct("name").Pluck("name", &names).Error)
	if len(names) != 1 || names[0] != "Same" {
		t.Fatalf("companies after the global update: %q", names)
	}
	var langs []string
	must(t, db.Model(&Language{}).Distinct("name").Pluck("name", &langs).Error)
	if len(langs) != 1 || langs[0] != "any" {
		t.Fatalf("languages after the global update: %q", langs)
	}

	// Delete: soft, then permanent

	must(t, db.Delete(&User{}, "name = ?", "Lion").Error)
	if err := db.First(&User{}, "name = ?", "Lion").Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Fatalf("First of a soft-deleted user: %v", err)
	}
	var lion User
	must(t, db.Unscoped().First(&lion, "name = ?", "Lion").Error)
	if !lion.DeletedAt.Valid {
		t.Fatalf("soft-deleted user %+v", lion)
	}
	must(t, db.Unscoped().Delete(&lion).Error)
	must(t, db.Unscoped().Model(&User{}).Where("name = ?", "Lion").Count(&count).Error)
	if count != 0 {
		t.Fatalf("%d users after the permanent delete", count)
	}
	must(t, db.Session(&gorm.Session{AllowGlobalUpdate: true}).Delete(&Language{}).Error)
	must(t, db.Where("1 = 1").Delete(&CreditCard{}).Error)
	must(t, db.Model(&CreditCard{}).Count(&count).Error)
	if count != 0 {
		t.Fatalf("%d credit cards after the (soft) delete of all", count)
	}
}
