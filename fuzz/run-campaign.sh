#!/usr/bin/env bash
# Runs every libFuzzer target of the fuzz build for N seconds each, one after the other, at the
# lowest CPU priority, and keeps a summary table up to date after each target.
#
#   fuzz/run-campaign.sh [SECONDS_PER_TARGET=600] [TARGET ...]      (from anywhere)
#
# Environment: BUILD (default build-fuzz), OUT (default fuzz-corpus: grown corpora, artifacts,
# logs; ignored by git), SUMMARY (default $OUT/campaign-summary.md), RSS_MB (2048),
# TIMEOUT_S (10, per input), NICE (19: the fuzzers' CPU priority). Targets default to every
# build-fuzz/fuzz/fuzz_* executable.
# Each target starts from its grown corpus in $OUT/<target>/ plus the committed seeds in
# fuzz/corpus/<target>/. libFuzzer stops a target at its first finding; the finding's input is in
# $OUT/artifacts/<target>/ (fuzz/README.md says how to replay it and where a fixed one goes).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECONDS_PER_TARGET=${1:-600}
shift || true
BUILD=${BUILD:-build-fuzz}
OUT=${OUT:-fuzz-corpus}
SUMMARY=${SUMMARY:-$OUT/campaign-summary.md}
RSS_MB=${RSS_MB:-2048}
TIMEOUT_S=${TIMEOUT_S:-10}
NICE=${NICE:-19}

if [ $# -gt 0 ]; then
  TARGETS=("$@")
else
  TARGETS=()
  for bin in "$BUILD"/fuzz/fuzz_*; do
    [ -x "$bin" ] && [ -f "$bin" ] && TARGETS+=("$(basename "$bin" | sed 's/^fuzz_//')")
  done
fi
if [ ${#TARGETS[@]} -eq 0 ]; then
  echo "no fuzz targets in $BUILD/fuzz (cmake --preset fuzz && cmake --build --preset fuzz)" >&2
  exit 2
fi

dictFor() {
  case "$1" in
    mhd) echo fuzz/dict/mhd.dict ;;
    npy) echo fuzz/dict/npy.dict ;;
    raw_sidecar | geometry_json) echo fuzz/dict/json.dict ;;
    listmode) echo fuzz/dict/listmode.dict ;;
    *) echo "" ;;
  esac
}

mkdir -p "$OUT/logs" "$(dirname "$SUMMARY")"
START=$(date -u '+%Y-%m-%d %H:%M UTC')
ROWS=()
writeSummary() {
  {
    echo "# Fuzz campaign, started $START"
    echo
    echo "$SECONDS_PER_TARGET s per target, sequential, nice $NICE; -rss_limit_mb=$RSS_MB" \
         "-timeout=$TIMEOUT_S; build $BUILD ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null))," \
         "host $(hostname), $(nproc) cores."
    echo
    echo "| target | seconds | execs | exec/s | cov | ft | corpus | findings | log |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for row in "${ROWS[@]}"; do echo "$row"; done
    echo
    echo "findings = files in $OUT/artifacts/<target>/ (crash-, leak-, timeout-, oom-);" \
         "replay one with $BUILD/fuzz/fuzz_<target> <file>."
  } > "$SUMMARY.tmp" && mv "$SUMMARY.tmp" "$SUMMARY"
}

for t in "${TARGETS[@]}"; do
  bin="$BUILD/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then
    ROWS+=("| $t | - | - | - | - | - | - | not built | - |")
    writeSummary
    continue
  fi
  mkdir -p "$OUT/$t" "$OUT/artifacts/$t"
  log="$OUT/logs/$t.log"
  dict=$(dictFor "$t")
  seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  args=("$OUT/$t" "${seeds[@]}" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb="$RSS_MB"
        -timeout="$TIMEOUT_S" -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$t/")
  [ -n "$dict" ] && args+=(-dict="$dict")
  echo "$(date -u '+%H:%M:%S') fuzz_$t for $SECONDS_PER_TARGET s -> $log"
  began=$(date +%s)
  nice -n "$NICE" "$bin" "${args[@]}" > "$log" 2>&1
  rc=$?
  took=$(($(date +%s) - began))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | grep -E ' cov: ' | tail -1)
  cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corpus=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
  findings=$(find "$OUT/artifacts/$t" -maxdepth 1 -type f \
               \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) |
             wc -l)
  note="$findings"
  [ "$rc" -ne 0 ] && note="$findings (exit $rc)"
  ROWS+=("| $t | $took | ${execs:--} | ${rate:--} | ${cov:--} | ${ft:--} | ${corpus:--} | $note | $log |")
  writeSummary
done
echo "$(date -u '+%H:%M:%S') done: $SUMMARY"
