#!/bin/sh
# Installs the Debian packages cko builds and runs with (run as root, or
# with sudo available). --tests adds what only the tests need: python3 (the
# fake model server, independent checks), python3-venv and cmake (make
# test-server builds llama-cpp-python into a venv), clang (the fuzzing job),
# slurm-wlm and munge (the Slurm dispatch test starts these daemons),
# groff-base (the man pages are rendered). --list
# prints the packages instead of installing them. The CUDA toolkit (NVRTC,
# the driver API headers, cuBLAS) is expected at /usr/local/cuda or $CUDA.
set -e
usage() { echo "usage: install-deps.sh [--tests] [--list]"; exit "${1:-2}"; }
# build: compiler, cJSON, libcurl; run: jq (run.mk, scripts), gnuplot (heatmaps)
pkgs="build-essential pkg-config libcjson-dev libcurl4-openssl-dev jq gnuplot-nox"
test_pkgs="python3 python3-venv cmake clang libclang-rt-14-dev slurm-wlm munge groff-base"
list=
for a; do
	case $a in
	--tests) pkgs="$pkgs $test_pkgs" ;;
	--list) list=1 ;;
	-h|--help) usage 0 ;;
	*) echo "install-deps.sh: $a: unknown option" >&2; usage ;;
	esac
done
if [ -n "$list" ]; then
	echo "$pkgs" | tr ' ' '\n'
	exit 0
fi
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then sudo=sudo; else sudo=; fi
missing=
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
[ -f "${CUDA:-/usr/local/cuda}/include/nvrtc.h" ] || echo "install-deps: warning: no CUDA toolkit at ${CUDA:-/usr/local/cuda}" >&2
true
