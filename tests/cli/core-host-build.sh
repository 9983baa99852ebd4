# The host/GPU boundary: every tool that does not include cko_gpu.h, and
# every unit test, builds with no CUDA toolkit at all (make CUDA=/nonexistent
# host units, into a build folder of its own) and links neither libnvrtc nor
# libcuda; the GPU tools do not build so.
. "$(dirname "$0")/../lib.sh"
b=$T/build bin=$T/bin
mk() { env -u MAKEFLAGS -u MAKELEVEL make -s -C "$CKO_TOP" CUDA=/nonexistent B="$b" BINDIR="$bin" "$@"; }

if mk -j2 host units >"$T/host.log" 2>&1; then
	ok host-build/no-cuda
else
	fail host-build/no-cuda "$(tail -5 "$T/host.log")"
	finish
fi

gpu= host=
for f in "$CKO_TOP"/tools/cko-*.c; do
	t=${f##*/}
	t=${t%.c}
	if grep -q '^#include "cko_gpu.h"' "$f"; then
		gpu="$gpu $t"
	else
		host="$host $t"
	fi
done
[ -n "$host" ] && [ -n "$gpu" ] && ok host-build/both-kinds || fail host-build/both-kinds "host:$host gpu:$gpu"

# Each host tool and unit test: built, no CUDA library named, and it starts.
for t in $host; do
	if [ ! -x "$bin/$t" ]; then
		fail "host-build/$t" "not built by make host"
		continue
	fi
	libs=$(readelf -d "$bin/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	case $libs in
	*libnvrtc* | *libcuda* | *libcublas*) fail "host-build/$t" "links $libs" ;;
	*) ok "host-build/$t" ;;
	esac
	expect_status "host-build/$t-help" 0 "$bin/$t" --help
done
for u in "$b"/tests/test-*; do
	case $u in *.o | *.d) continue ;; esac
	libs=$(readelf -d "$u" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	case $libs in
	*libnvrtc* | *libcuda*) fail "host-build/${u##*/}" "links $libs" ;;
	*) ok "host-build/${u##*/}" ;;
	esac
done

# The GPU tools need the toolkit: without it they do not build.
for t in $gpu; do
	if mk "$bin/$t" >"$T/gpu.log" 2>&1; then
		fail "host-build/$t-needs-cuda" "built with CUDA=/nonexistent"
	else
		ok "host-build/$t-needs-cuda"
	fi
done
finish
