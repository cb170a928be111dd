#!/bin/sh
# Usage: shares.sh PROFILE [pprof flags, e.g. -sample_index=alloc_space]
#
# Who a CPU or allocation profile's samples are for: each sample is
# charged to its innermost frame outside the Go runtime and the standard
# library's helpers (runtime, reflect, sync, strconv, time, ...; pprof's
# -hide), so the reflection GORM does counts as GORM's and the decoding
# spannerfast does as spannerfast's; then the charges are summed by
# owner. Samples with no such frame (the garbage collector's background
# workers, the scheduler) are "runtime only". Prints the owners' shares,
# then the top frames as pprof shows them without -hide.
set -eu
prof=$1
shift
# The standard library's helpers, the runtime's assembly (names without a
# package) and compiler-generated functions.
hide='^(runtime|reflect|sync|strconv|time|unicode|strings|bytes|fmt|sort|math|errors|encoding|internal|slices|maps|context|os|syscall|io|bufio|net|crypto|hash|container|iter|weak|unique)[./]|^[A-Za-z0-9_]+$|^type:'
# sumflat PPROF-ARGS...: the sum of flat% over every node.
sumflat() {
	go tool pprof -top -nodecount=1000000 "$@" 2>/dev/null |
		awk '$2 ~ /%$/ && $3 ~ /%$/ { v = $2; sub(/%/, "", v); s += v } END { printf "%.1f", s }'
}
go tool pprof -top -nodecount=1000000 -hide="$hide" "$@" "$prof" 2>/dev/null | awk '
/of [0-9.]+[a-zA-Z]* total/ { for (i = 1; i <= NF; i++) if ($(i+1) == "total") total = $i; next }
$2 ~ /%$/ && $3 ~ /%$/ {
	name = $6
	v = $2; sub(/%/, "", v)
	if (name ~ /^gorm\.io\//) o = "gorm.io/gorm (GORM: callbacks, statement building, reflection, scanning)"
	else if (name ~ /spannerfast\/spannerfast\/spannergorm/) o = "spannergorm (the dialector)"
	else if (name ~ /spannerfast\/spannerfast\/cmd\// || name ~ /^main\./) o = "benchmark (models, checksums)"
	else if (name ~ /spannerfast\/spannerfast\//) o = "spannerfast (driver, decoding, transport)"
	else if (name ~ /go-sql-spanner/) o = "go-sql-spanner"
	else if (name ~ /go-gorm-spanner/) o = "go-gorm-spanner (the dialector)"
	else if (name ~ /^(go\.opentelemetry\.io|go\.opencensus\.io|github\.com\/googleapis\/gax-go)/) o = "the official client'"'"'s instrumentation and call wrapping (OpenTelemetry, OpenCensus, gax)"
	else if (name ~ /^cloud\.google\.com\/go\/spanner/) o = "cloud.google.com/go/spanner (official client; its spannerpb messages)"
	else if (name ~ /^database\/sql/) o = "database/sql"
	else if (name ~ /^google\.golang\.org\/(grpc|protobuf)/ || name ~ /^golang\.org\/x\/net/) o = "gRPC and protobuf"
	else o = "other: " name
	share[o] += v; sum += v
}
END {
	printf "total %s\n", total
	for (o in share) printf "%6.1f%%  %s\n", share[o], o
	printf "%6.1f%%  runtime only (GC workers, scheduler: no frame outside the runtime)\n", 100 - sum
}' | sort -t% -k1 -rn
printf "of which the garbage collector's background workers: %s%%\n" "$(sumflat -focus='^runtime\.gcBgMarkWorker$' "$@" "$prof")"
echo
echo "top frames (flat, nothing hidden):"
go tool pprof -top -nodecount=25 "$@" "$prof" 2>/dev/null | sed -n '/flat%/,$p'
