#!/usr/bin/env bash
# Run every example program of go-sql-spanner on the Cloud Spanner emulator,
# once per driver, each on an emulator of its own (started fresh for every
# run, so no program sees another's instance, database or sessions).
# A program passes when it exits 0 within the timeout, as go-sql-spanner's
# own samples_test.go requires (it runs them with `go run -race .`).
#
# Usage: ./run.sh [-run REGEXP] [-drivers "spanner spannerfast"]
#                 [-timeout 180] [-port 9711] [-norace] [-nobuild]
# -nobuild runs the programs already in bin/<driver>/ (built by an earlier
# run), e.g. to run the two drivers in parallel on two ports.
# Output: a table on stdout; results/<driver>/<example>.log (the program's
# stdout and stderr), results/<driver>.tsv (example, PASS|FAIL|TIMEOUT,
# seconds, exit code).
set -u
cd "$(dirname "$0")"
RUN='.*'; DRIVERS="spanner spannerfast"; TIMEOUT=180; PORT=9711; RACE=-race; BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    -run) RUN="$2"; shift 2;;
    -drivers) DRIVERS="$2"; shift 2;;
    -timeout) TIMEOUT="$2"; shift 2;;
    -port) PORT="$2"; shift 2;;
    -norace) RACE=""; shift;;
    -nobuild) BUILD=""; shift;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
. ./emulator.sh # the emulator on 127.0.0.1:$PORT (../emulator.sh, copied by setup.sh)

EXAMPLES=$(cd spanner && for d in */; do d=${d%/}; [ -f "$d/main.go" ] && echo "$d"; done | grep -E "$RUN")
for d in $DRIVERS; do
  [ -n "$BUILD" ] || break
  echo "building $d examples ($RACE)..." >&2
  mkdir -p "bin/$d"
  # -s -w: no symbol table or DWARF; linking 27 programs is most of the
  # build time on a small machine.
  (cd "$d" && nice -n 19 go build -p 1 $RACE -ldflags='-s -w' -o "../bin/$d/" ./...) || exit 1
done
for d in $DRIVERS; do
  mkdir -p "results/$d"
  : > "results/$d.tsv"
  for e in $EXAMPLES; do
    [ -t 2 ] && printf '\r[%s] %-50s' "$d" "$e" >&2
    start_emulator "results/$d/$e.emulator.log" || exit 1
    start=$EPOCHREALTIME
    # The programs find the emulator through SPANNER_EMULATOR_HOST and then
    # start no container of their own (examples/emulator_runner.go).
    (cd "$d/$e" && SPANNER_EMULATOR_HOST=$ADDR timeout --kill-after=10 "$TIMEOUT" nice -n 19 "../../bin/$d/$e") \
      > "results/$d/$e.log" 2>&1
    rc=$?
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')
    stop_emulator
    if [ $rc -eq 0 ]; then res=PASS; elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then res=TIMEOUT; else res=FAIL; fi
    printf '%s\t%s\t%s\t%s\n' "$e" "$res" "$secs" "$rc" >> "results/$d.tsv"
  done
  [ -t 2 ] && printf '\r%-70s\r' "" >&2
done
# The table: one row per example, one column per driver.
printf '%-38s' example; for d in $DRIVERS; do printf ' %12s' "$d"; done; echo
for e in $EXAMPLES; do
  printf '%-38s' "$e"
  for d in $DRIVERS; do printf ' %12s' "$(awk -F'\t' -v e="$e" '$1==e{print $2}' "results/$d.tsv")"; done
  echo
done
printf '%-38s' "PASS"; for d in $DRIVERS; do printf ' %12s' "$(grep -c $'\tPASS\t' "results/$d.tsv")/$(wc -l < "results/$d.tsv")"; done; echo
