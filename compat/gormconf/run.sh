#!/usr/bin/env bash
# Run go-gorm-spanner's own tests and samples once per driver.
#
# tests:   the test functions of the packages . (spannergorm) and
#          ./postgresql (spannerpg), each in its own process, with an
#          emulator (one per driver run) in SPANNER_EMULATOR_HOST, so both
#          its mock-server tests and its emulator tests run. A test's kind
#          (mock or emulator) is the file it is in: integration_test.go and
#          *emulator_test.go need the emulator, the others use
#          go-sql-spanner's in-memory mock server.
# samples: every sample of samples/run_sample.go and
#          postgresql/samples/run_sample.go (the argument it takes; none for
#          the sample application), plus helloworld (and quickstart), each on
#          a fresh emulator; a sample passes when it exits 0.
#
# Usage: ./run.sh [-only tests|samples] [-run REGEXP] [-drivers "spanner spannerfast"]
#                 [-dialects "googlesql postgresql"] [-timeout 300] [-port 9712]
# Output: tables on stdout; results/<driver>/<name>.log;
#         results/<driver>.tests.tsv (package, test, kind, PASS|FAIL|SKIP, seconds);
#         results/<driver>.samples.tsv (dialect, sample, PASS|FAIL|TIMEOUT, seconds).
set -u
cd "$(dirname "$0")"
ONLY=""; RUN='.*'; DRIVERS="spanner spannerfast"; DIALECTS="googlesql postgresql"; TIMEOUT=300; PORT=9712
while [ $# -gt 0 ]; do
  case "$1" in
    -only) ONLY="$2"; shift 2;;
    -run) RUN="$2"; shift 2;;
    -drivers) DRIVERS="$2"; shift 2;;
    -dialects) DIALECTS="$2"; shift 2;;
    -timeout) TIMEOUT="$2"; shift 2;;
    -port) PORT="$2"; shift 2;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
. ./emulator.sh # the emulator on 127.0.0.1:$PORT (../emulator.sh, copied by setup.sh)
export GOFLAGS="${GOFLAGS:-} -mod=mod"
secs_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}'; }

run_tests() {
  local d=$1 pkg bin t kind start rc res
  : > "results/$d.tests.tsv"
  start_emulator "results/$d/tests.emulator.log" || exit 1
  for pkg in . postgresql; do
    bin="bin/$d/$( [ "$pkg" = . ] && echo spannergorm || echo spannerpg ).test"
    for t in $("$bin" -test.list "$RUN" | grep '^Test' | sort); do
      kind=mock
      grep -q "^func $t(" $d/$pkg/integration_test.go $d/$pkg/*emulator_test.go 2>/dev/null && kind=emulator
      [ -t 2 ] && printf '\r[%s] %-60s' "$d" "$pkg $t" >&2
      start=$EPOCHREALTIME
      # The test binary runs in its package directory, as go test does.
      (cd "$d/$pkg" && SPANNER_EMULATOR_HOST=$ADDR timeout --kill-after=10 "$TIMEOUT" nice -n 19 \
        "$OLDPWD/$bin" -test.run "^${t}\$" -test.count 1 -test.v) > "results/$d/$pkg.$t.log" 2>&1
      rc=$?
      if [ $rc -ne 0 ]; then res=FAIL
      elif grep -q "^--- SKIP: $t " "results/$d/$pkg.$t.log"; then res=SKIP
      else res=PASS; fi
      printf '%s\t%s\t%s\t%s\t%s\n' "$pkg" "$t" "$kind" "$res" "$(secs_since "$start")" >> "results/$d.tests.tsv"
    done
  done
  stop_emulator
}

run_samples() {
  local d=$1 dialect dir s start rc res
  : > "results/$d.samples.tsv"
  for dialect in $DIALECTS; do
    dir=samples; [ $dialect = postgresql ] && dir=postgresql/samples
    for s in sample_application $(grep -o 'case "[a-z_]*"' "$d/$dir/run_sample.go" | cut -d'"' -f2) \
             $(cd "$d/$dir" && for m in helloworld quickstart; do [ -f $m/main.go ] && echo "$m"; done); do
      echo "$s" | grep -qE "$RUN" || continue
      [ -t 2 ] && printf '\r[%s] %-60s' "$d" "$dialect $s" >&2
      start_emulator "results/$d/$dialect.$s.emulator.log" || exit 1
      start=$EPOCHREALTIME
      case $s in
        helloworld|quickstart) cmd=("$PWD/bin/$d/$dialect.$s");;
        sample_application) cmd=("$PWD/bin/$d/$dialect.samples");;
        *) cmd=("$PWD/bin/$d/$dialect.samples" "$s");;
      esac
      # run_sample.go embeds its data model; the programs run in their
      # module directory as `go run` would.
      (cd "$d/$dir" && SPANNER_EMULATOR_HOST=$ADDR timeout --kill-after=10 "$TIMEOUT" nice -n 19 "${cmd[@]}") \
        > "results/$d/$dialect.$s.log" 2>&1
      rc=$?
      stop_emulator
      if [ $rc -eq 0 ]; then res=PASS; elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then res=TIMEOUT; else res=FAIL; fi
      printf '%s\t%s\t%s\t%s\n' "$dialect" "$s" "$res" "$(secs_since "$start")" >> "results/$d.samples.tsv"
    done
  done
}

for d in $DRIVERS; do
  echo "building $d..." >&2
  mkdir -p "bin/$d" "results/$d"
  if [ "$ONLY" != samples ]; then
    (cd "$d" && nice -n 19 go test -p 1 -c -o "../bin/$d/spannergorm.test" . &&
      nice -n 19 go test -p 1 -c -o "../bin/$d/spannerpg.test" ./postgresql) || exit 1
  fi
  if [ "$ONLY" != tests ]; then
    for dialect in $DIALECTS; do
      dir=samples; [ $dialect = postgresql ] && dir=postgresql/samples
      (cd "$d/$dir" && nice -n 19 go build -p 1 -o "$OLDPWD/bin/$d/$dialect.samples" .) || exit 1
      for m in helloworld quickstart; do
        [ -f "$d/$dir/$m/main.go" ] || continue
        (cd "$d/$dir" && nice -n 19 go build -p 1 -o "$OLDPWD/bin/$d/$dialect.$m" "./$m") || exit 1
      done
    done
  fi
done
for d in $DRIVERS; do
  [ "$ONLY" != samples ] && run_tests "$d"
  [ "$ONLY" != tests ] && run_samples "$d"
  [ -t 2 ] && printf '\r%-80s\r' "" >&2
done

# Tables: pass counts per kind and driver.
summary() { # file, key columns awk expr, result column
  awk -F'\t' -v col="$3" -v drivers="$DRIVERS" '
    BEGIN { nd = split(drivers, D, " ") }
    FNR == 1 { di++ }
    { k = '"$2"'; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
      if (di == 1) total[k]++
      if ($col == "PASS") pass[k, di]++; if ($col == "SKIP") skip[k, di]++ }
    END {
      printf "%-22s %6s", "", "total"; for (i = 1; i <= nd; i++) printf " %22s", D[i] " pass/skip"; printf "\n"
      for (j = 1; j <= n; j++) { k = order[j]; printf "%-22s %6d", k, total[k]
        for (i = 1; i <= nd; i++) printf " %22s", pass[k, i] + 0 "/" skip[k, i] + 0; printf "\n" }
    }' $(for d in $DRIVERS; do echo "results/$d.$1.tsv"; done)
}
if [ "$ONLY" != samples ]; then echo "== go-gorm-spanner tests"; summary tests '$1 " " $3' 4; fi
if [ "$ONLY" != tests ]; then echo "== go-gorm-spanner samples"; summary samples '$1' 3; fi
