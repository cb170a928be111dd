#!/usr/bin/env bash
# Build the two trees of go-sql-spanner's example programs in a scratch
# directory.
#   setup.sh GSS_CHECKOUT PROJECT_CHECKOUT WORKDIR
# GSS_CHECKOUT: a source tree of github.com/googleapis/go-sql-spanner (the
# search tool's fetch gives its git dir; `git archive HEAD | tar -x -C DIR`).
# WORKDIR/spanner: its examples/ module unchanged but for the replace
# directive, which points at GSS_CHECKOUT instead of "../".
# WORKDIR/spannerfast: the same programs with the driver swapped (rewrite.sh):
# the import of github.com/googleapis/go-sql-spanner becomes
# github.com/spannerfast/spannerfast/driver (same alias) and
# sql.Open("spanner", ...) becomes sql.Open("spannerfast", ...). Nothing else
# changes. Nothing of go-sql-spanner is kept in this repository.
set -euo pipefail
gss=$(cd "$1" && pwd); proj=$(cd "$2" && pwd); work=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
cp "$here/run.sh" "$here/rewrite.sh" "$here/../emulator.sh" "$work/"
for d in spanner spannerfast; do
  rm -rf "${work:?}/$d"
  cp -r "$gss/examples" "$work/$d"
  (cd "$work/$d" && go mod edit -replace "github.com/googleapis/go-sql-spanner=$gss")
done
"$work/rewrite.sh" "$work/spannerfast"
(cd "$work/spannerfast" &&
  go mod edit -require github.com/spannerfast/spannerfast@v0.0.0 \
    -replace "github.com/spannerfast/spannerfast=$proj" &&
  GOFLAGS=-mod=mod nice -n 19 go mod tidy)
(cd "$work/spanner" && GOFLAGS=-mod=mod nice -n 19 go mod tidy)
# The commit of the peer, for the results (setup.sh does not know it when
# the tree came from git archive: write it by hand, or pass GSS_COMMIT).
echo "${GSS_COMMIT:-unknown}" > "$work/gss_commit"
echo "examples ready in $work: ./run.sh (see README.md)"
