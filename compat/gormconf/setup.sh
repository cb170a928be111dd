#!/usr/bin/env bash
# Build the two trees of go-gorm-spanner in a scratch directory.
#   setup.sh GORM_CHECKOUT PROJECT_CHECKOUT WORKDIR
# GORM_CHECKOUT: a source tree of github.com/googleapis/go-gorm-spanner (the
# search tool's fetch gives its git dir; `git archive HEAD | tar -x -C DIR`).
# WORKDIR/spanner: go-gorm-spanner unchanged (go-sql-spanner underneath, at
# the version its go.mod pins).
# WORKDIR/spannerfast: the same tree, with its tests and samples rewritten by
# rewrite.py to open the database/sql driver "spannerfast"; the library
# (the dialectors, the migrators) is not touched. Nothing of go-gorm-spanner
# is kept in this repository.
set -euo pipefail
gorm=$(cd "$1" && pwd); proj=$(cd "$2" && pwd); work=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
cp "$here/run.sh" "$here/rewrite.py" "$here/../emulator.sh" "$work/"
modules=". samples postgresql/samples"
for d in spanner spannerfast; do
  rm -rf "${work:?}/$d"
  cp -r "$gorm" "$work/$d"
done
python3 "$work/rewrite.py" "$work/spannerfast" > "$work/rewritten.log"
(cd "$work/spannerfast" && gofmt -w $(sed -n 's/^rewritten: //p' "$work/rewritten.log") gormconf_spannerfast_test.go)
for m in $modules; do
  (cd "$work/spannerfast/$m" &&
    go mod edit -require github.com/spannerfast/spannerfast@v0.0.0 \
      -replace "github.com/spannerfast/spannerfast=$proj" &&
    GOFLAGS=-mod=mod nice -n 19 go mod tidy)
  (cd "$work/spanner/$m" && GOFLAGS=-mod=mod nice -n 19 go mod tidy)
done
echo "${GORM_COMMIT:-unknown}" > "$work/gorm_commit"
echo "go-gorm-spanner ready in $work: ./run.sh (see README.md)"
