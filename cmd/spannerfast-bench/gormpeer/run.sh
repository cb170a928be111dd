#!/bin/sh
# Builds and runs gormpeer (see doc.go) under nice. GSS_TREE and GORM_TREE,
# when set, are source trees of go-sql-spanner and go-gorm-spanner to
# build with instead of the versions go.mod requires. Missing go.sum lines
# are filled in from the module cache or the module proxy (-mod=mod), in
# a scratch copy of go.mod: the files here are not changed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/go.mod" "$tmp/go.mod"
[ -f "$here/go.sum" ] && cp "$here/go.sum" "$tmp/go.sum"
cd "$here"
go mod edit -modfile="$tmp/go.mod" -replace "github.com/spannerfast/spannerfast=$root"
[ -n "${GSS_TREE:-}" ] && go mod edit -modfile="$tmp/go.mod" -replace "github.com/googleapis/go-sql-spanner=$GSS_TREE"
[ -n "${GORM_TREE:-}" ] && go mod edit -modfile="$tmp/go.mod" -replace "github.com/googleapis/go-gorm-spanner=$GORM_TREE"
nice -n 19 go build -mod=mod -modfile="$tmp/go.mod" -o "$tmp/gormpeer" .
nice -n 19 "$tmp/gormpeer" "$@"
