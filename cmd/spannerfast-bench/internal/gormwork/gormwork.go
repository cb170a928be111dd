package gormwork

import (
	"context"
	"fmt"
	"math"
	"time"

	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// Row is the model of the gorm10k workload's rows (table bench_gorm).
type Row struct {
	ID        int64
	Name      string
	Email     string
	Balance   float64
	Active    bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Singer is the parent model of the association workloads: its key is
// given by the application (no IDENTITY, so no THEN RETURN), and it has
// many Albums.
type Singer struct {
	ID        int64 `gorm:"primaryKey;autoIncrement:false"`
	Name      string
	Email     string
	Balance   float64
	Active    bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Albums    []Album
}

// TableName is the table of the Preload workload's parents.
func (Singer) TableName() string { return workload.PreloadParentTable }

// Album is the child model: SingerID is GORM's default foreign key to
// Singer.
type Album struct {
	ID        int64 `gorm:"primaryKey;autoIncrement:false"`
	SingerID  int64
	Title     string
	Price     float64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName is the table of the Preload workload's children.
func (Album) TableName() string { return workload.PreloadChildTable }

// The workloads an Op may need the server to serve (workload.Select).
const ServerWorkloads = "gorm10k,gorm-preload-parents,gorm-preload-children"

// Op is one kind of GORM operation of the comparison.
type Op struct {
	Name        string
	Description string
	// Rows is the number of rows one operation reads (0 for writes).
	Rows int
	// Run does operation i (i makes the keys of created rows differ) and
	// returns the checksum of the rows it read.
	Run func(ctx context.Context, db *gorm.DB, i int) (uint64, error)
	// Want is the checksum Run must return.
	Want uint64
}

// Children is the number of Albums an association create saves with its
// Singer.
const Children = 10

// Ops returns the operations, reading the results of the workloads named
// in ServerWorkloads (selected at any scale; find reads gorm10k's rows).
func Ops(ws []*workload.Workload) ([]Op, error) {
	byName := map[string]*workload.Workload{}
	for _, w := range ws {
		byName[w.Name] = w
	}
	find, parents, children := byName["gorm10k"], byName["gorm-preload-parents"], byName["gorm-preload-children"]
	if find == nil || parents == nil || children == nil {
		return nil, fmt.Errorf("gormwork: the workloads %s are needed", ServerWorkloads)
	}
	return []Op{
		{Name: "find", Description: fmt.Sprintf("db.Table(%q).Limit(%d).Find(&[]Row)", find.GormTable, find.Rows),
			Rows: find.Rows, Run: findOp(find), Want: rowsSum(find)},
		{Name: "create", Description: "db.Create(&singer): one row, in GORM's default transaction",
			Run: createOp(0, false)},
		{Name: "create-assoc", Description: fmt.Sprintf("db.Create(&singer) with %d new Albums, GORM's default association save", Children),
			Run: createOp(Children, false)},
		{Name: "create-assoc-full", Description: "the same with Session(FullSaveAssociations: true)",
			Run: createOp(Children, true)},
		{Name: "preload", Description: fmt.Sprintf("db.Preload(\"Albums\").Limit(%d).Find(&[]Singer): %d singers, %d albums",
			parents.Rows, parents.Rows, children.Rows),
			Rows: parents.Rows + children.Rows, Run: preloadOp(parents.Rows, children.Rows), Want: rowsSum(parents) + albumsSum(children)},
	}, nil
}

func findOp(w *workload.Workload) func(context.Context, *gorm.DB, int) (uint64, error) {
	return func(ctx context.Context, db *gorm.DB, _ int) (uint64, error) {
		var rows []Row
		if err := db.WithContext(ctx).Table(w.GormTable).Limit(w.Rows).Find(&rows).Error; err != nil {
			return 0, err
		}
		if len(rows) != w.Rows {
			return 0, fmt.Errorf("Find returned %d rows, want %d", len(rows), w.Rows)
		}
		var total uint64
		for i := range rows {
			total += rows[i].Sum()
		}
		return total, nil
	}
}

// createdAt is the time every created row carries (GORM sets CreatedAt
// and UpdatedAt only when they are zero).
var createdAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func createOp(children int, full bool) func(context.Context, *gorm.DB, int) (uint64, error) {
	return func(ctx context.Context, db *gorm.DB, i int) (uint64, error) {
		id := int64(i)*(Children+1) + 1
		s := Singer{ID: id, Name: "singer", Email: "singer@example.com", Balance: 1.5, Active: true,
			CreatedAt: createdAt, UpdatedAt: createdAt}
		for c := range children {
			s.Albums = append(s.Albums, Album{ID: id + 1 + int64(c), Title: "album", Price: 9.99,
				CreatedAt: createdAt, UpdatedAt: createdAt})
		}
		tx := db.WithContext(ctx)
		if full {
			tx = tx.Session(&gorm.Session{FullSaveAssociations: true})
		}
		res := tx.Create(&s)
		if res.Error != nil {
			return 0, res.Error
		}
		if res.RowsAffected != 1 {
			return 0, fmt.Errorf("Create affected %d rows, want 1", res.RowsAffected)
		}
		return 0, nil
	}
}

func preloadOp(parents, children int) func(context.Context, *gorm.DB, int) (uint64, error) {
	return func(ctx context.Context, db *gorm.DB, _ int) (uint64, error) {
		var singers []Singer
		if err := db.WithContext(ctx).Preload("Albums").Limit(parents).Find(&singers).Error; err != nil {
			return 0, err
		}
		if len(singers) != parents {
			return 0, fmt.Errorf("Preload returned %d singers, want %d", len(singers), parents)
		}
		var total uint64
		n := 0
		for i := range singers {
			s := &singers[i]
			total += Row{ID: s.ID, Name: s.Name, Email: s.Email, Balance: s.Balance, Active: s.Active,
				CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}.Sum()
			for j := range s.Albums {
				if s.Albums[j].SingerID != s.ID {
					return 0, fmt.Errorf("singer %d got album %d of singer %d", s.ID, s.Albums[j].ID, s.Albums[j].SingerID)
				}
				total += s.Albums[j].Sum()
			}
			n += len(s.Albums)
		}
		if n != children {
			return 0, fmt.Errorf("Preload attached %d albums, want %d", n, children)
		}
		return total, nil
	}
}

// Sum is the checksum of a row's values.
func (r Row) Sum() uint64 {
	return mixSum(uint64(r.ID), sumString(r.Name), sumString(r.Email), math.Float64bits(r.Balance),
		sumBool(r.Active), uint64(r.CreatedAt.UnixNano()), uint64(r.UpdatedAt.UnixNano()))
}

// Sum is the checksum of an album's values.
func (a Album) Sum() uint64 {
	return mixSum(uint64(a.ID), uint64(a.SingerID), sumString(a.Title), math.Float64bits(a.Price),
		uint64(a.CreatedAt.UnixNano()), uint64(a.UpdatedAt.UnixNano()))
}

// rowsSum is the checksum of a result of Row's columns, from the values
// the generator made.
func rowsSum(w *workload.Workload) uint64 {
	var total uint64
	for r := 0; r < w.Rows; r++ {
		total += Row{ID: w.GoValue(r, 0).(int64), Name: w.GoValue(r, 1).(string), Email: w.GoValue(r, 2).(string),
			Balance: w.GoValue(r, 3).(float64), Active: w.GoValue(r, 4).(bool),
			CreatedAt: w.GoValue(r, 5).(time.Time), UpdatedAt: w.GoValue(r, 6).(time.Time)}.Sum()
	}
	return total
}

func albumsSum(w *workload.Workload) uint64 {
	var total uint64
	for r := 0; r < w.Rows; r++ {
		total += Album{ID: w.GoValue(r, 0).(int64), SingerID: w.GoValue(r, 1).(int64), Title: w.GoValue(r, 2).(string),
			Price: w.GoValue(r, 3).(float64), CreatedAt: w.GoValue(r, 4).(time.Time), UpdatedAt: w.GoValue(r, 5).(time.Time)}.Sum()
	}
	return total
}

func mixSum(vals ...uint64) uint64 {
	var total uint64
	for i, v := range vals {
		total += v * uint64(2*i+1)
	}
	return total
}

func sumString(s string) uint64 {
	h := uint64(len(s))
	for i := 0; i < len(s); i++ {
		h = h*31 + uint64(s[i])
	}
	return h
}

func sumBool(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
