#!/bin/bash
# After run.sh: every test that did not pass with DRIVER (default
# spannerfast), with its group and the first failure line of its log, to
# write causes from (RESULTS.md, causes.tsv).
#   tools/failures.sh [DRIVER]
cd "$(dirname "$0")/.."
d=${1:-spannerfast}
awk -F'\t' '$3 != "PASS" {print $1 "\t" $2 "\t" $3}' "results/$d.tsv" | while IFS=$'\t' read -r t g r; do
  msg=$(grep -m1 -E '_test\.go:[0-9]+:|^panic:|timed out' "results/$d/$t.log" | sed 's/^\s*//' | cut -c1-240)
  printf '%s\t%s\t%s\t%s\n' "$t" "$g" "$r" "$msg"
done
