# Shared by the fake GPU tools (sourced).
log() { [ -n "$FAKE_GPU_LOG" ] && echo "$1 $TOOL $$ $(date +%s.%N) ${CKO_GPU_SLOT:-0} ${CUDA_VISIBLE_DEVICES:--} ${SLURM_JOB_ID:-none}" >>"$FAKE_GPU_LOG"; true; }
# The source of the kernel a request runs, and its launch.json.
req_dir() { dirname "$1"; }
kernel_dir() { d=$(req_dir "$1"); c=$(jq -r .cubin "$1"); dirname "$d/$c"; }
kernel_src() { k=$(kernel_dir "$1"); jq -r .source "$k/compile.json"; }
mode_of() { sed -n 's|.*// FAKE: \([a-z]*\).*|\1|p' "$(kernel_src "$1")" | head -n 1; }
fake_time() {
	src=$(kernel_src "$1")
	c=$(jq -r .case "$1")
	t=$(sed -n "s|.*// FAKE:.* time\\.$c=\\([0-9.]*\\).*|\\1|p" "$src" | head -n 1)
	[ -n "$t" ] || t=$(sed -n 's|.*// FAKE:.* time=\([0-9.]*\).*|\1|p' "$src" | head -n 1)
	if [ -z "$t" ]; then
		b=$(jq -r '.defines.BLOCK // 128' "$(kernel_dir "$1")/launch.json" 2>/dev/null || echo 128)
		# fastest at BLOCK=256, deterministic
		t=$(awk -v b="$b" 'BEGIN { l = log(b) / log(2); d = l - 8; if (d < 0) d = -d; printf "%.4f", 1 + 0.5 * d }')
	fi
	echo "$t"
}
# --after RECORD (harness/step.c): when the record is not ok, write a
# skipped record as OUT and exit 0.
fake_after() { # record out
	[ -n "$1" ] || return 0
	s=$(jq -r .status "$1" 2>/dev/null)
	case $s in ok) return 0 ;; esac
	j="{\"tool\": \"$TOOL\", \"status\": \"skipped\", \"reason\": \"$(basename "$1" .json): $s\"}"
	echo "$j" >"$2.tmp" && mv "$2.tmp" "$2"
	exit 0
}
