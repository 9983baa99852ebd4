#!/bin/sh
# sgemm-sim: runs the sgemm kernels of workloads/sgemm/space.json on the CPU
# (tests/cli/sgemm-sim.cc: one fiber per CUDA thread, cp.async completing as
# late as allowed, ASan/UBSan on) for odd and aligned sizes, and checks that
# every element of C is written and equals, bit for bit, a k-ordered fmaf
# loop (for the stream-K variant, the same fixed sum of such loops over the
# k-parts the kernel makes, whichever block arrives last).  By default the
# main configuration of each variant; CKO_FULL=1 adds
# an even spread of the space (CKO_SGEMM_SIM=N points, default 40).
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/cli/sim-build.subr"

SP=$CKO_TOP/workloads/sgemm/space.json
PY=$CKO_TOP/tests/cli/sgemm-space.py
SIM=$CKO_TOP/tests/cli/sgemm-sim.cc
sim_setup sgemm-sim

# By default the main configuration of each variant (kernels/README.md),
# stream-K in both segment orders.
python3 "$PY" list "$SP" >"$T/all" || { fail sgemm-sim-list "sgemm-space.py list failed"; finish; }
awk -F'\t' '$1 " " $3 == "multistage TM=8 TN=8 LM=4 WARPS_M=4 WARPS_N=2 BK=8 STAGES=3 MINB=1" ||
	$1 " " $3 == "streamk STREAMK=1 TM=8 TN=16 LM=8 WARPS_M=2 WARPS_N=4 BK=16 STAGES=4 MINB=1 CTAS=132 KSYNC=1" ||
	$1 " " $3 == "streamk STREAMK=1 TM=8 TN=16 LM=4 WARPS_M=4 WARPS_N=2 BK=16 STAGES=3 MINB=1 CTAS=132 KSYNC=0" ||
	$1 " " $3 == "warptile TM=8 TN=8 LM=4 WARPS_M=4 WARPS_N=2 BK=8 MINB=2" ||
	$1 " " $3 == "blocktile BM=128 BN=128 BK=8 TM=8 TN=8"' "$T/all" >"$T/points"
if [ "$(wc -l <"$T/points")" -ne 5 ]; then
	fail sgemm-sim-list "the main configurations are not all in $SP"
fi
if [ -n "$CKO_FULL" ]; then
	python3 "$PY" list "$SP" --sample "${CKO_SGEMM_SIM:-40}" >>"$T/points"
fi

# M N K: every residue of N and K mod 4, partial tiles, several k-slabs
# and stages, more than one block in each direction.
sizes="1 1 1
37 53 19
127 65 33
64 68 21
130 130 42
33 35 35
257 129 67
256 256 64"

i=0
while IFS='	' read -r variant source defs; do
	i=$((i + 1))
	name="sgemm-sim/$variant $defs"
	smem=$(python3 "$PY" launch "$SP" "$variant" 1 1 1 $defs | awk '{print $7}')
	bin="$T/sim$i"
	sim_build "$name" "$bin" "$SIM" "$CKO_TOP/workloads/sgemm/$source" "$defs" -DSIM_SMEM_BYTES="$smem" || continue
	order=$i
	echo "$sizes" | {
		while read -r M N K; do
			set -- $(python3 "$PY" launch "$SP" "$variant" "$M" "$N" "$K" $defs)
			if [ "$5" != 1 ] || [ "$6" != 1 ]; then
				echo "${M}x${N}x${K}: block $4x$5x$6 is not one-dimensional"
			elif ! "$bin" "$M" "$N" "$K" "$1" "$2" "$3" "$4" "$7" "$order" 2>"$T/run.err"; then
				echo "${M}x${N}x${K} (order $order): $(grep -v 'WARNING: ASan' "$T/run.err" | head -c 300)"
			fi
			order=$((order + 1))
		done
		# stream-K with more blocks than slabs (blocks with no share)
		if [ "$variant" = streamk ] && ! "$bin" 37 53 19 7 1 1 "$4" "$7" "$order" 2>"$T/run.err"; then
			echo "37x53x19 on 7 blocks: $(grep -v 'WARNING: ASan' "$T/run.err" | head -c 300)"
		fi
	} >"$T/bad"
	sim_verdict "$name"
done <"$T/points"
finish
