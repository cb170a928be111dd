#!/usr/bin/env python3
"""Put spannerfast under go-gorm-spanner's own tests and samples.

    rewrite.py TREE

TREE is a copy of github.com/googleapis/go-gorm-spanner. The library itself
(spanner.go, migrator.go, postgresql/spanner.go, ...) is left as it is; only
the code that uses it changes, and only in three ways:

1. the import of go-sql-spanner's driver package (any alias) becomes
   spannerfast's (github.com/spannerfast/spannerfast/driver), which has the
   same API names (ConnectorConfig, CreateConnector, SpannerConn) and
   registers the driver "spannerfast";
2. DriverName: "spanner" becomes DriverName: "spannerfast";
3. a dialector Config literal (spannergorm.Config / Config in the
   library's own package / postgres.Config) that names no DriverName,
   Connector or Conn gets DriverName: "spannerfast" (go-gorm-spanner's
   default is "spanner").

go-sql-spanner's testutil (the mock server) stays. Every rewritten package
also gets a file that imports spannerfast's driver, so the name is
registered. Prints what it changed; fails if a literal is left that would
open go-sql-spanner.
"""
import os
import re
import sys

tree = sys.argv[1]
SF = "github.com/spannerfast/spannerfast/driver"
IMPORT_RE = re.compile(r'((?:\w+|_)\s+)?"github\.com/googleapis/go-sql-spanner"')
LITERAL_RE = re.compile(r'\b(?:spannergorm\.New\(spannergorm\.Config|spannergorm\.Config|New\(Config|'
                        r'postgres\.Config)\{')


def callers():
    """The Go files that use the library: tests, test helpers, samples."""
    for root, dirs, files in os.walk(tree):
        rel = os.path.relpath(root, tree)
        if rel.split(os.sep)[0] in ("benchmarks", ".git"):
            dirs[:] = []
            continue
        for f in files:
            if not f.endswith(".go"):
                continue
            is_sample = rel.split(os.sep)[0] == "samples" or rel.startswith(os.path.join("postgresql", "samples"))
            if f.endswith("_test.go") or is_sample or rel.split(os.sep)[0] == "testutil":
                yield os.path.join(root, f)


def literal_end(src, start):
    """Index of the brace that closes the literal opened at src[start-1]."""
    depth = 1
    i = start
    while i < len(src):
        c = src[i]
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i
        elif c in '"`':
            j = src.index(c, i + 1)
            while c == '"' and src[j - 1] == '\\':
                j = src.index(c, j + 1)
            i = j
        i += 1
    raise ValueError("unbalanced literal")


changed_dirs = {}
left = []
for path in sorted(callers()):
    src = open(path).read()
    orig = src
    src = IMPORT_RE.sub(lambda m: (m.group(1) or "") + '"' + SF + '"', src)
    src = src.replace('DriverName: "spanner"', 'DriverName: "spannerfast"')
    src = re.sub(r'DriverName:(\s+)"spanner"', r'DriverName:\1"spannerfast"', src)
    out, pos = [], 0
    for m in LITERAL_RE.finditer(src):
        if m.start() < pos:
            continue
        end = literal_end(src, m.end())
        body = src[m.end():end]
        # Only the literal's own fields (not those of nested literals).
        top = re.sub(r'\{[^{}]*\}', '', body)
        if re.search(r'\b(DriverName|Connector|Conn)\s*:', top):
            continue
        out.append(src[pos:m.end()])
        sep = "\n" if body.startswith("\n") else ""
        out.append(sep + 'DriverName: "spannerfast",' + ("" if sep else " "))
        pos = m.end()
    out.append(src[pos:])
    src = "".join(out)
    if src != orig:
        open(path, "w").write(src)
        print("rewritten:", os.path.relpath(path, tree))
        pkg = re.search(r'^package (\w+)', src, re.M).group(1)
        changed_dirs.setdefault((os.path.dirname(path), pkg, path.endswith("_test.go")), True)
    if re.search(r'"github\.com/googleapis/go-sql-spanner"|DriverName:\s*"spanner"', src):
        left.append(path)

for (d, pkg, is_test) in changed_dirs:
    name = "gormconf_spannerfast_test.go" if is_test else "gormconf_spannerfast.go"
    with open(os.path.join(d, name), "w") as f:
        f.write("// Added by compat/gormconf (rewrite.py): registers the driver \"spannerfast\".\n"
                "package %s\n\nimport _ \"%s\"\n" % (pkg, SF))

if left:
    print("rewrite.py: still naming go-sql-spanner's driver:", *left, sep="\n  ", file=sys.stderr)
    sys.exit(1)
