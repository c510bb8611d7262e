#!/usr/bin/env bash
# Builds the fuzz configuration (build-fuzz: clang-14, -DNMSIM_FUZZ=ON) and runs libFuzzer
# harnesses for a time budget each (docs/fuzzing.md). The seed corpora are copied from the
# repository's own files into a temporary directory (or --corpus DIR, kept between runs).
#
#   tools/fuzz/run.sh [options] [TARGET...]     TARGET: scenario, bss2_network, onnx (default: all)
#     --time S          seconds per target (default 60)
#     --jobs N          N parallel fuzzing processes per target (-jobs=N -workers=N; default 1)
#     --seed N          libFuzzer's random seed (default 1: the same run each time)
#     --corpus DIR      keep each target's corpus in DIR/TARGET (default: a temporary directory)
#     --build-dir DIR   the fuzz build (default build-fuzz); --no-build uses it as it is
#     --artifacts DIR   where findings are written (default BUILD-DIR/fuzz-artifacts)
#     -- ARGS...        further libFuzzer flags for every target
#
# Exit status 0 if no target found anything; 1 otherwise, after printing each reproducer and the
# command that replays it. Fixed limits: -rss_limit_mb=2048 -timeout=10 (seconds per input).
set -euo pipefail
src=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$src"

time_s=60
jobs=1
seed=1
corpus_root=
build_dir=build-fuzz
build=1
artifacts=
targets=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_s=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --corpus) corpus_root=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --artifacts) artifacts=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    scenario|bss2_network|onnx) targets+=("$1"); shift ;;
    *) echo "run.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(scenario bss2_network onnx)
build_dir=$(mkdir -p "$build_dir" && cd "$build_dir" && pwd)
artifacts=${artifacts:-$build_dir/fuzz-artifacts}
mkdir -p "$artifacts"
artifacts=$(cd "$artifacts" && pwd)

if [ "$build" = 1 ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNMSIM_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
  cmake --build "$build_dir" -j "${JOBS:-$(nproc 2>/dev/null || echo 2)}"
fi

# Our own sanitizer settings, whatever the caller exported (nmsim.sh turns leak detection off for
# the SystemC tests; the parsers have no such excuse): leaks, address errors and undefined
# behaviour are findings.
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

work=$(mktemp -d /tmp/nmsim-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT

# seeds TARGET DIR: copies the repository's inputs of TARGET into DIR.
seeds() {
  local dir=$2
  case "$1" in
    scenario)
      cp scenarios/*.yaml tests/scenarios/data/*.yaml tests/tools/scenario/data/*.yaml "$dir"/
      # --set items ride along as "#set " comment lines (fuzz_scenario.cpp).
      { cat scenarios/s2_pe_matmul.yaml
        printf '#set workload.pe.cores.0.args.shift=10\n#set pe.perf_level=0\n'; } >"$dir/set_pe.yaml"
      { cat scenarios/s2_mlp_fmnist.yaml
        printf '#set workload.dnn.count=3\n#set workload.dnn.layer_workers=[2, 1]\n'; } >"$dir/set_dnn.yaml"
      { cat scenarios/bss2_feedforward.yaml
        printf '#set workload.bss2.runs.0.inputs.0.rate_hz=5\n#set seed=7\n'; } >"$dir/set_bss2.yaml"
      ;;
    bss2_network) cp scenarios/bss2/*.yaml "$dir"/ ;;
    onnx)
      cp scenarios/models/*.onnx tests/tools/compiler/data/*.onnx "$dir"/
      if compgen -G "tests/errors/fixtures/*.onnx" >/dev/null; then
        cp tests/errors/fixtures/*.onnx "$dir"/
      fi
      ;;
  esac
}

failed=()
for t in "${targets[@]}"; do
  exe=$build_dir/bin/fuzz_$t
  [ -x "$exe" ] || { echo "run.sh: $exe not built" >&2; exit 2; }
  if [ -n "$corpus_root" ]; then
    corpus=$corpus_root/$t
  else
    corpus=$work/corpus/$t
  fi
  mkdir -p "$corpus" "$work/seeds/$t"
  seeds "$t" "$work/seeds/$t"
  dict=$work/$t.dict
  if [ "$t" = scenario ]; then
    NMSIM_FUZZ_PRINT_DICT=1 "$exe" >"$dict"
  else
    cp "tools/fuzz/$t.dict" "$dict"
  fi
  flags=(-max_total_time="$time_s" -rss_limit_mb=2048 -timeout=10 -seed="$seed"
    -dict="$dict" -artifact_prefix="$artifacts/$t-" -print_final_stats=1)
  if [ "$jobs" -gt 1 ]; then
    flags+=(-jobs="$jobs" -workers="$jobs")
  fi
  before=$(ls "$artifacts" | grep -c "^$t-" || true)
  echo "== fuzz_$t: ${time_s} s$([ "$jobs" -gt 1 ] && echo " x $jobs jobs"), seed $seed"
  log=$work/$t.log
  start=$(date +%s)
  set +e
  (cd "$work" && "$exe" "${flags[@]}" "${extra[@]}" "$corpus" "$work/seeds/$t") >"$log" 2>&1
  rc=$?
  set -e
  [ "$jobs" -gt 1 ] && cat "$work"/fuzz-*.log >>"$log" 2>/dev/null
  # The summary: the last status line (executions, coverage, corpus) and the final statistics.
  grep -a -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true
  grep -E 'stat::(number_of_executed_units|peak_rss_mb)' "$log" || true
  echo "   $(($(date +%s) - start)) s, $(ls "$corpus" | wc -l) inputs in the corpus"
  after=$(ls "$artifacts" | grep -c "^$t-" || true)
  if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
    failed+=("$t")
    echo "!! fuzz_$t: finding (libFuzzer exit status $rc); the end of its log:"
    grep -a -v -E '^#[0-9]+' "$log" | tail -40
    for f in $(ls -t "$artifacts" | grep "^$t-" | head -$((after - before > 0 ? after - before : 1))); do
      echo "!! reproducer: $artifacts/$f"
      echo "!!   replay:   $exe $artifacts/$f"
      echo "!!   minimise: $exe -minimize_crash=1 -runs=10000 $artifacts/$f"
    done
    cp "$log" "$artifacts/$t-$(date +%Y%m%d-%H%M%S).log"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (reproducers in $artifacts; docs/fuzzing.md)" >&2
  exit 1
fi
echo "fuzz: no findings in ${targets[*]}"
