#!/bin/sh
# Builds and runs gormpeer (see doc.go) under nice. GSS_TREE and GORM_TREE,
# when set, are source trees of go-sql-spanner and go-gorm-spanner to
# build with instead of the versions go.mod requires. Missing go.sum lines
# are filled in from the module cache or the module proxy (-mod=mod), in
# a scratch copy of go.mod: the files here are not changed. Arguments go
# to gormpeer (see doc.go), e.g. -rounds 11.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/go.mod" "$tmp/go.mod"
[ -f "$here/go.sum" ] && cp "$here/go.sum" "$tmp/go.sum"
(
	cd "$here"
	go mod edit -modfile="$tmp/go.mod" -replace "github.com/spannerfast/spannerfast=$root"
	if [ -n "${GSS_TREE:-}" ]; then
		go mod edit -modfile="$tmp/go.mod" -replace "github.com/googleapis/go-sql-spanner=$GSS_TREE"
	fi
	if [ -n "${GORM_TREE:-}" ]; then
		go mod edit -modfile="$tmp/go.mod" -replace "github.com/googleapis/go-gorm-spanner=$GORM_TREE"
	fi
	nice -n 19 go build -mod=mod -modfile="$tmp/go.mod" -o "$tmp/gormpeer" .
)
# Runs in the caller's directory, where -json and the profiles go.
nice -n 19 "$tmp/gormpeer" "$@"
