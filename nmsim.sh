#!/usr/bin/env bash
# Set-up and go for nmsim on Debian 12. Installs missing Debian packages with apt-get, builds,
# then either runs the default scenario or builds and runs every test.
#   ./nmsim.sh run [nmsim run options...]   build (Release) and run scenarios/s2_mlp_fmnist.yaml
#   ./nmsim.sh test                         build Release + ASan/UBSan, run all tests in both, then
#                                           fuzz the input parsers for 60 s each (docs/fuzzing.md)
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"

PACKAGES=(cmake ninja-build g++ pkg-config git
  libsystemc-dev libunicorn-dev libcapstone-dev libhdf5-dev hdf5-tools libcli11-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev nlohmann-json3-dev gcc-arm-none-eabi qemu-system-arm libonnx-dev libprotobuf-dev
  python3 python3-h5py python3-pandas python3-numpy python3-matplotlib python3-pytest python3-yaml python3-onnx python3-brian python3-torch pybind11-dev python3-pybind11 python3-dev graphviz slurm-wlm munge
  clang-14 libclang-rt-14-dev zlib1g-dev dataset-fashion-mnist)
JOBS=$(nproc 2>/dev/null || echo 2)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "nmsim: installing missing Debian packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {  # build DIR [cmake args...]
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  run)
    install_missing
    build build -DCMAKE_BUILD_TYPE=Release
    exec ./build/bin/nmsim run scenarios/s2_mlp_fmnist.yaml -o build/s2_mlp_fmnist.h5 "$@"
    ;;
  test)
    install_missing
    export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
    echo "== Release build"
    build build -DCMAKE_BUILD_TYPE=Release
    ./build/bin/nmsim params spinnaker2 --check
    (cd build && ctest -j "$JOBS" --output-on-failure)
    echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DNMSIM_SANITIZE=ON
    # Leak detection is off: LeakSanitizer's stop-the-world tracer intermittently crashes on
    # SystemC's coroutine stacks (seen in ~1 of 10 runs), and each test process deliberately leaks
    # the SystemC kernels it replaces (they cannot be destroyed). Address errors and undefined
    # behaviour are still fatal.
    export ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=0:abort_on_error=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    (cd build-asan && ctest -j "$JOBS" --output-on-failure)
    echo "== libFuzzer harnesses (clang-14, ASan + UBSan): 60 s each"
    # A finding fails the test command; run.sh prints the reproducer and how to replay it.
    JOBS=$JOBS tools/fuzz/run.sh --time 60 --seed 1
    ;;
  *)
    echo "usage: $0 run [nmsim run options...] | $0 test" >&2
    exit 2
    ;;
esac
