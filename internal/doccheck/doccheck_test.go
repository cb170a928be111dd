package doccheck

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the module's root directory, found from the test's working
// directory (the package directory under go test).
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// pages are the Markdown files the checks cover, relative to the root.
func pages(t *testing.T, root string) []string {
	t.Helper()
	list := []string{"README.md", "CHANGELOG.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		list = append(list, rel)
	}
	var out []string
	for _, p := range list {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		t.Fatalf("found only %v to check", out)
	}
	return out
}

// page is a Markdown file split into its prose (code spans kept) and the
// headings it defines.
type page struct {
	prose    []string // lines outside fenced code blocks, with their numbers
	lineNo   []int
	headings map[string]bool // GitHub anchors of its headings
}

func readPage(t *testing.T, path string) page {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := page{headings: map[string]bool{}}
	seen := map[string]int{}
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(line, "#") {
			a := anchor(strings.TrimLeft(line, "# "))
			if k := seen[a]; k > 0 {
				p.headings[a+"-"+strconv.Itoa(k)] = true
			} else {
				p.headings[a] = true
			}
			seen[a]++
		}
		p.prose = append(p.prose, line)
		p.lineNo = append(p.lineNo, n)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return p
}

// anchor is the fragment GitHub gives a heading: lower case, punctuation
// other than '-' and '_' dropped, spaces as '-'.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	spanRE = regexp.MustCompile("`([^`]+)`")
	nameRE = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz|Example)\w*\b`)
	funcRE = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
	fileRE = regexp.MustCompile(`^[\w./*-]+\.go$`)
)

// TestLinksResolve: every relative link points to a file of the repository
// and, with a fragment into a Markdown page, to one of its headings.
func TestLinksResolve(t *testing.T) {
	root := root(t)
	cache := map[string]page{}
	load := func(path string) page {
		if p, ok := cache[path]; ok {
			return p
		}
		p := readPage(t, path)
		cache[path] = p
		return p
	}
	for _, name := range pages(t, root) {
		src := filepath.Join(root, name)
		p := load(src)
		for i, line := range p.prose {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := src
				if file != "" {
					dest = filepath.Join(filepath.Dir(src), filepath.FromSlash(file))
					if rel, err := filepath.Rel(root, dest); err != nil || strings.HasPrefix(rel, "..") {
						t.Errorf("%s:%d: link %q leaves the repository", name, p.lineNo[i], target)
						continue
					}
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link %q: no such file", name, p.lineNo[i], target)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(dest, ".md") && !load(dest).headings[frag] {
					t.Errorf("%s:%d: link %q: no heading with anchor %q in %s", name, p.lineNo[i], target, frag, filepath.Base(dest))
				}
			}
		}
	}
}

// TestCitedTestsExist: every test, benchmark, fuzz target or example a page
// names in a code span is a function of some _test.go file, and every Go
// file it names exists, so a claim never rests on a test that was renamed
// or removed.
func TestCitedTestsExist(t *testing.T) {
	root := root(t)
	defined := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range funcRE.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !defined["TestCitedTestsExist"] {
		t.Fatal("the scan of test sources missed this very test")
	}
	cited := 0
	for _, name := range pages(t, root) {
		p := readPage(t, filepath.Join(root, name))
		// Code spans may run over a line break, so they are found in the
		// prose as one text; a span's line is the line it starts on.
		text := strings.Join(p.prose, "\n")
		for _, loc := range spanRE.FindAllStringSubmatchIndex(text, -1) {
			line := p.lineNo[strings.Count(text[:loc[0]], "\n")]
			span := text[loc[2]:loc[3]]
			for _, n := range nameRE.FindAllString(span, -1) {
				cited++
				if !defined[n] {
					t.Errorf("%s:%d: cites %s, which no _test.go file defines", name, line, n)
				}
			}
			for _, tok := range strings.Fields(span) {
				if !fileRE.MatchString(tok) || !strings.Contains(tok, "/") {
					continue
				}
				matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(tok, "./"))))
				if err != nil || len(matches) == 0 {
					t.Errorf("%s:%d: names %s, which does not exist", name, line, tok)
				}
			}
		}
	}
	if cited == 0 {
		t.Fatal("no test cited anywhere: the pattern is broken")
	}
}

// TestReadmeTwoCommands: the README gives a new user exactly two commands,
// the quickstart on the embedded server and the whole test suite, and the
// quickstart is there to run.
func TestReadmeTwoCommands(t *testing.T) {
	root := root(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Two commands\n")
	if !ok {
		t.Fatal(`README.md has no "## Two commands" section`)
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the Two commands section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	got := strings.Split(strings.TrimSpace(block), "\n")
	want := []string{"go run ./examples/quickstart", "go test -race ./..."}
	if !slices.Equal(got, want) {
		t.Fatalf("the two commands are %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(root, "examples", "quickstart", "main.go")); err != nil {
		t.Fatal(err)
	}
}

// TestReadmeIsAFrontPage: the README says what spannerfast is, how fast,
// how to install and use it, and links to the guides; the tests behind its
// claims are named in the guides, where the checks above keep them honest,
// so the front page stays short and names none.
func TestReadmeIsAFrontPage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const maxLines = 150
	if n := strings.Count(string(b), "\n"); n > maxLines {
		t.Errorf("README.md has %d lines, more than %d: move detail to docs/", n, maxLines)
	}
	testName := regexp.MustCompile("`(Test|Example|Benchmark|Fuzz)[A-Za-z0-9_]*`")
	if names := testName.FindAllString(string(b), -1); len(names) > 0 {
		t.Errorf("README.md names tests %v: name them in the guide that makes the claim", names)
	}
}
