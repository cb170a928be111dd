#!/usr/bin/env bash
# Count the RPCs of each operation with go-sql-spanner and with spannerfast.
#   run.sh GSS_CHECKOUT PROJECT_CHECKOUT [WORKDIR]
# GSS_CHECKOUT: a source tree of github.com/googleapis/go-sql-spanner;
# PROJECT_CHECKOUT: a spannerfast checkout. main.go is copied into WORKDIR
# (default /tmp/roundtrips), a module that points at both; the table goes to
# stdout (RESULTS.md keeps the latest).
set -euo pipefail
gss=$(cd "$1" && pwd); proj=$(cd "$2" && pwd); work=${3:-/tmp/roundtrips}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cp "$here/main.go" "$work/"
cd "$work"
cat > go.mod <<EOM
module roundtrips

go 1.26.0

replace github.com/googleapis/go-sql-spanner => $gss

replace github.com/spannerfast/spannerfast => $proj
EOM
go mod edit -require github.com/googleapis/go-sql-spanner@v0.0.0 -require github.com/spannerfast/spannerfast@v0.0.0
GOFLAGS=-mod=mod go mod tidy >/dev/null
nice -n 19 go build -o roundtrips .
./roundtrips
