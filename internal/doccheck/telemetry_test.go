package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// telemetryNamePrefixes are the prefixes of the exported constants of
// internal/telemetry that name something an application sees: metrics,
// attribute keys, span event names.
var telemetryNamePrefixes = []string{"Metric", "Key", "Event"}

// TestObservabilityDocumentsTelemetry fails when internal/telemetry names
// a metric, an attribute, a span event or an operation (span name) that
// docs/observability.md does not mention in backquotes: every name an
// application can see in its backend is documented there. It reads the
// package's sources (exported string constants whose names start with
// Metric, Key or Event, and the operation names of kindNames), evaluating
// literals, attribute.Key("...") and sums of constants.
func TestObservabilityDocumentsTelemetry(t *testing.T) {
	root := root(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "observability.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := telemetryNames(t, filepath.Join(root, "internal", "telemetry"))
	if len(names) < 10 {
		t.Fatalf("found only %d names in internal/telemetry: %v", len(names), names)
	}
	text := string(doc)
	for _, n := range names {
		if !strings.Contains(text, "`"+n.value+"`") {
			t.Errorf("docs/observability.md does not document %s (`%s`, internal/telemetry's %s)", n.kind, n.value, n.ident)
		}
	}
}

type telemetryName struct{ kind, ident, value string }

// telemetryNames reads the names internal/telemetry defines.
func telemetryNames(t *testing.T, dir string) []telemetryName {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]ast.Expr{}
	var kindNames *ast.CompositeLit
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, id := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if gd.Tok == token.CONST {
						consts[id.Name] = vs.Values[i]
					}
					if id.Name == "kindNames" {
						kindNames, _ = vs.Values[i].(*ast.CompositeLit)
					}
				}
			}
		}
	}
	var out []telemetryName
	for ident, expr := range consts {
		if !ast.IsExported(ident) || !slices.ContainsFunc(telemetryNamePrefixes, func(p string) bool { return strings.HasPrefix(ident, p) }) {
			continue
		}
		v, ok := stringConst(consts, expr)
		if !ok {
			continue // not a string: a level, a number
		}
		kind := "metric"
		switch {
		case strings.HasPrefix(ident, "Key"):
			kind = "attribute"
		case strings.HasPrefix(ident, "Event"):
			kind = "span event"
		}
		out = append(out, telemetryName{kind, ident, v})
	}
	if kindNames == nil {
		t.Fatal("internal/telemetry has no kindNames: the operation names are not where this test looks")
	}
	for _, e := range kindNames.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if v, ok := stringConst(consts, kv.Value); ok {
			out = append(out, telemetryName{"operation (span name)", "kindNames", v})
		}
	}
	slices.SortFunc(out, func(a, b telemetryName) int { return strings.Compare(a.value, b.value) })
	return out
}

// stringConst evaluates a string constant expression: a literal,
// attribute.Key("..."), a parenthesized one, or a sum of those and of
// other constants of the package.
func stringConst(consts map[string]ast.Expr, e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return stringConst(consts, e.X)
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Key" && len(e.Args) == 1 {
			return stringConst(consts, e.Args[0])
		}
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok1 := stringConst(consts, e.X)
		b, ok2 := stringConst(consts, e.Y)
		return a + b, ok1 && ok2
	case *ast.Ident:
		if c, ok := consts[e.Name]; ok {
			return stringConst(consts, c)
		}
	}
	return "", false
}
