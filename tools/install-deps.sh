#!/bin/sh
# Installs the Debian packages cko builds and tests with (run as root, or
# with sudo available). The CUDA toolkit (NVRTC, the driver API headers,
# cuBLAS) is expected at /usr/local/cuda or $CUDA.
set -e
pkgs="build-essential pkg-config libcjson-dev libcurl4-openssl-dev jq gnuplot-nox groff-base python3 clang libclang-rt-14-dev slurm-wlm munge"
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then sudo=sudo; else sudo=; fi
missing=
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
[ -f "${CUDA:-/usr/local/cuda}/include/nvrtc.h" ] || echo "install-deps: warning: no CUDA toolkit at ${CUDA:-/usr/local/cuda}" >&2
true
