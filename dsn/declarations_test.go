package dsn_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/spannerfast/spannerfast/dsn"
)

var update = flag.Bool("update", false, "rewrite docs/properties.md from the property declarations")

// TestPropertyDocs keeps docs/properties.md equal to what the declarations
// generate.
func TestPropertyDocs(t *testing.T) {
	path := filepath.Join("..", "docs", "properties.md")
	want := dsn.Reference()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; regenerate it with: go test ./dsn -run TestPropertyDocs -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/properties.md differs from the property declarations in dsn/properties.go; regenerate it with: go test ./dsn -run TestPropertyDocs -update")
	}
}

// TestDeclarations: every property has a type, a description and a scope
// that agrees with what SET does with it.
func TestDeclarations(t *testing.T) {
	decls := dsn.Declarations()
	if len(decls) != len(dsn.Properties()) {
		t.Fatalf("%d declarations for %d properties", len(decls), len(dsn.Properties()))
	}
	for _, d := range decls {
		if d.Type == "" || d.Description == "" {
			t.Errorf("%s: type %q, description %q: want both", d.Name, d.Type, d.Description)
		}
		if got, ok := dsn.Declaration(d.Name); !ok || got != d {
			t.Errorf("Declaration(%s) = %+v, %v; want %+v", d.Name, got, ok, d)
		}
		if d.Scope == dsn.ScopeStartup != dsn.IsStartupProperty(d.Name) {
			t.Errorf("%s: scope %v, IsStartupProperty %v", d.Name, d.Scope, dsn.IsStartupProperty(d.Name))
		}
		if d.Scope == dsn.ScopeReadOnly {
			continue
		}
		c := dsn.NewConfig()
		if d.PostgreSQL {
			c.DatabaseDialect = dsn.DialectPostgreSQL
		}
		if v, err := c.Get(d.Name); err != nil || v != d.Default {
			t.Errorf("%s: default %q, Get %q, %v", d.Name, d.Default, v, err)
		}
		err := c.SetVariable(d.Name, d.Default)
		if (err == nil) != (d.Scope == dsn.ScopeConnection) {
			t.Errorf("%s: scope %v, SetVariable: %v", d.Name, d.Scope, err)
		}
	}
	if _, ok := dsn.Declaration("rawDecode"); !ok {
		t.Error("Declaration(rawDecode) not found")
	}
}
