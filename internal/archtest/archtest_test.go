package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// layers ranks every package of the module by its path relative to the
// module root. Lower layers know nothing of higher ones. Read it bottom up:
// values and wire bytes, then the things built on them, then the
// database/sql adapter, the public API, and what uses the public API.
var layers = map[string]int{
	// 0: leaves. Values, configuration, SQL text, fixtures.
	"decode":                                  0,
	"dsn":                                     0,
	"internal/sqlparse":                       0,
	"internal/mutationpb":                     0,
	"internal/pgerror":                        0, // SQLSTATE of PostgreSQL-dialect errors
	"internal/randrs":                         0,
	"internal/fakespanner":                    0,
	"internal/fakemonitoring":                 0, // for tests: a fake of Cloud Monitoring's MetricService
	"internal/emulatortest":                   0,
	"internal/structscan":                     0, // STRUCT values (spanner.NullRow) into Go structs
	"spannerfasttest/internal/sqltext":        0,
	"cmd/spannerfast-bench/internal/workload": 0,

	// 1: built on the leaves.
	"internal/wire":                              1, // frames and request encoding (decode)
	"internal/valuetext":                         1,
	"internal/params":                            1, // Go arguments to Spanner parameters
	"internal/connstate":                         1, // the typed property store (dsn)
	"internal/multistmt":                         1, // plans strings of several statements (sqlparse)
	"internal/telemetry":                         1, // OpenTelemetry spans and metrics, the slog logger
	"internal/nativemetrics":                     1, // the built-in metrics' export to Cloud Monitoring (dsn)
	"cmd/spannerfast-bench/internal/benchserver": 1,
	"cmd/spannerfast-bench/internal/gormwork":    1, // the GORM comparison's models and operations (GORM, workload)
	"cmd/spannerfast-bench/internal/scan":        1, // the bench's scan targets and checksums (workload)
	"cmd/spannerfast-bench/internal/sqlfloor":    1, // the bench's database/sql floor driver (workload)
	"spannerfasttest/internal/infoschema":        1,

	// 2: rows on the decoder; the transport.
	"rows":               2,
	"internal/transport": 2,
	"internal/ddlop":     2, // what a DDL operation says; the default_sequence_kind retry; its span (telemetry)
	"spannerfasttest":    2, // the embedded server

	"cmd/spannerfast-bench/internal/bare": 2, // Spanner RPCs with grpc-go alone, captured from a driver (benchserver)

	// 3: the engines: streaming queries (rows, wire), transactions
	// (transport, rows; streams are opened by its host), partitioned reads.
	"internal/stream":    3,
	"internal/txn":       3,
	"internal/partition": 3,
	"internal/embedded":  3, // starts spannerfasttest for examples

	// 4: the options a statement or transaction comes with (they name
	// partitions).
	"internal/stmtopts": 4,
	"internal/bulkload": 4, // CopyFrom's engine: commits under Spanner's limits, the rows' accounting (mutationpb, txn, transport)

	// 5: the database/sql connection: routes statements to executors.
	"conn": 5,
	// the rules both GORM dialectors share (knows GORM, not the driver);
	// below dialecttest, whose scenarios use its types
	"spannergorm/internal/gormcore": 5,

	// 6: the public Go API and driver registration.
	"driver": 6,
	// the association-save scenario both dialectors' emulator tests run
	"spannergorm/internal/dialecttest": 6,

	// 7: built on the public API.
	"spannergorm":            7, // GoogleSQL
	"spannergorm/postgresql": 7, // PostgreSQL

	// 8: programs and end-to-end tests.
	"cmd/spannerfast-bench": 8,
	"e2e":                   8,
	"examples":              8, // every examples/<name>
	"internal/archtest":     8,
	"internal/doccheck":     8, // keeps README and docs/ honest
}

// maxLines is the most lines a package may have outside its tests.
const maxLines = 4000

type pkg struct {
	rel     string // path relative to the module root
	lines   int
	imports map[string]token.Position // module-relative import -> where
	words   []token.Position          // calls of sqlparse's word splitter
}

func TestArchitecture(t *testing.T) {
	root, module := moduleRoot(t)
	pkgs := readPackages(t, root, module)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s: the walk is broken", len(pkgs), root)
	}
	for _, msg := range check(root, pkgs) {
		t.Error(msg)
	}
}

// check applies the three rules to pkgs and returns one message per
// violation.
func check(root string, pkgs []*pkg) []string {
	var out []string
	for _, p := range pkgs {
		rank, ok := rankOf(p.rel)
		if !ok {
			out = append(out, fmt.Sprintf("package %s has no layer: give it a rank in archtest_test.go's layers", p.rel))
			continue
		}
		for imp, pos := range p.imports {
			r, ok := rankOf(imp)
			if ok && r < rank {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s (layer %d) imports %s (layer %d): imports must go to a lower layer", rel(root, pos), p.rel, rank, imp, r))
		}
		if p.lines > maxLines {
			out = append(out, fmt.Sprintf("package %s has %d lines outside its tests, more than %d: split it by concern", p.rel, p.lines, maxLines))
		}
		if p.rel != "internal/sqlparse" {
			for _, pos := range p.words {
				out = append(out, fmt.Sprintf("%s: statement text is split into words outside internal/sqlparse: parse it once there", rel(root, pos)))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestCheckCatches feeds check made-up packages that break each rule, so
// that a check that can no longer fail does not pass unnoticed.
func TestCheckCatches(t *testing.T) {
	pos := token.Position{Filename: "x.go", Line: 1, Column: 1}
	pkgs := []*pkg{
		{rel: "rows", imports: map[string]token.Position{"conn": pos}},                 // up
		{rel: "internal/txn", imports: map[string]token.Position{"internal/txn": pos}}, // sideways (same rank)
		{rel: "conn", lines: maxLines + 1, imports: map[string]token.Position{"rows": pos}},
		{rel: "driver", words: []token.Position{pos}, imports: map[string]token.Position{"conn": pos}},
		{rel: "newthing"},
		{rel: "examples/quickstart", imports: map[string]token.Position{"driver": pos}}, // fine
	}
	got := check("", pkgs)
	want := []string{
		"package conn has 4001 lines",
		"package newthing has no layer",
		"rows (layer 2) imports conn (layer 5)",
		"internal/txn (layer 3) imports internal/txn (layer 3)",
		"split into words outside internal/sqlparse",
	}
	if len(got) != len(want) {
		t.Errorf("check found %d violations, want %d: %q", len(got), len(want), got)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("check missed %q; it said %q", w, got)
		}
	}
}

// rankOf returns the layer of a module-relative package path; each package
// under examples/ shares the rank of examples.
func rankOf(rel string) (int, bool) {
	if r, ok := layers[rel]; ok {
		return r, true
	}
	if strings.HasPrefix(rel, "examples/") {
		return layers["examples"], true
	}
	return 0, false
}

func rel(root string, pos token.Position) string {
	if r, err := filepath.Rel(root, pos.Filename); err == nil {
		pos.Filename = r
	}
	return pos.String()
}

// moduleRoot finds go.mod above the working directory.
func moduleRoot(t *testing.T) (root, module string) {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.TrimSpace(m)
				}
			}
			t.Fatalf("%s/go.mod has no module line", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// readPackages parses the non-test Go files of every directory under root
// (skipping testdata, hidden and underscore directories, as the go tool
// does) and returns one pkg per directory that has any.
func readPackages(t *testing.T, root, module string) []*pkg {
	byDir := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		p := byDir[dir]
		if p == nil {
			p = &pkg{rel: dir, imports: map[string]token.Position{}}
			byDir[dir] = p
		}
		p.lines += bytes.Count(src, []byte("\n"))
		sqlparseName := ""
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if r, ok := strings.CutPrefix(path, module+"/"); ok {
				p.imports[r] = fset.Position(imp.Pos())
				if r == "internal/sqlparse" {
					sqlparseName = "sqlparse"
					if imp.Name != nil {
						sqlparseName = imp.Name.Name
					}
				}
			}
		}
		if sqlparseName != "" {
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == sqlparseName && sel.Sel.Name == "Words" {
					p.words = append(p.words, fset.Position(sel.Pos()))
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*pkg, 0, len(byDir))
	for _, p := range byDir {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}
