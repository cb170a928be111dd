#!/usr/bin/env bash
# Swap the driver in a copy of go-sql-spanner's examples: the driver import
# (with whatever alias it has) and the driver name in sql.Open. The helper
# package github.com/googleapis/go-sql-spanner/examples (emulator set-up) is
# the examples module itself and stays. Prints what it changed.
#   rewrite.sh EXAMPLES_TREE
set -euo pipefail
cd "$1"
for f in $(grep -rl --include='*.go' -e '"github.com/googleapis/go-sql-spanner"' -e 'sql.Open("spanner"' .); do
  perl -pi -e '
    s{"github\.com/googleapis/go-sql-spanner"}{"github.com/spannerfast/spannerfast/driver"}g;
    s{sql\.Open\("spanner",}{sql.Open("spannerfast",}g;
  ' "$f"
  echo "rewritten: $f"
done
# A program that still names the old driver would test go-sql-spanner.
if grep -rn --include='*.go' -e '"github.com/googleapis/go-sql-spanner"' -e '"spanner",' . ; then
  echo "rewrite.sh: the lines above still name go-sql-spanner's driver" >&2
  exit 1
fi
