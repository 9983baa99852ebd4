# A writer killed with -9 leaves TARGET.tmp.PID.N beside its target; the
# next write of that target removes it (only that target's, only of dead
# processes, only in that folder), so a successful rerun leaves none.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
sh -c 'exit 0' &
dead=$!
wait $dead
sleep 60 &
live=$!
trap 'kill $live 2>/dev/null' EXIT
mkdir -p d other
for f in d/A.npy.tmp.$dead.0 d/A.npy.tmp.$dead.17 d/A.npy.tmp.$live.0 d/B.npy.tmp.$dead.0 d/A.npy.tmp.x.0 \
	d/A.npy.tmp.$dead.0.keep d/A.npy.tmp.$dead other/A.npy.tmp.$dead.0; do
	head -c 4096 /dev/zero >"$f"
done
expect_status stale-tmp/write 0 cko-npy -t f32 -s 2 -o d/A.npy -- 1 2
[ ! -e d/A.npy.tmp.$dead.0 ] && [ ! -e d/A.npy.tmp.$dead.17 ] && ok stale-tmp/dead-removed ||
	fail stale-tmp/dead-removed "$(ls d)"
left=$(cd d && ls | sort | tr '\n' ' ')
want=$(printf '%s\n' A.npy A.npy.tmp.$dead A.npy.tmp.$dead.0.keep A.npy.tmp.$live.0 A.npy.tmp.x.0 B.npy.tmp.$dead.0 | sort | tr '\n' ' ')
expect_eq stale-tmp/others-kept "$left" "$want"
[ -e other/A.npy.tmp.$dead.0 ] && ok stale-tmp/other-folder-kept || fail stale-tmp/other-folder-kept "removed"

# The case of the report: cko-gen killed while writing a case's input; the
# rerun (make reruns it: cases/index.json is missing) leaves no temporary.
D=$DATA/run
cko-gen --hidden-seed 1 -o cases "$D/signature.json" "$D/cases.json" 2>/dev/null
x=$(find cases -name '*.npy' | head -n 1)
cp "$x" "$x.tmp.$dead.3"
rm -f cases/index.json
expect_status stale-tmp/rerun 0 cko-gen --hidden-seed 1 -o cases "$D/signature.json" "$D/cases.json"
expect_eq stale-tmp/rerun-none-left "$(find cases -name '*.tmp.*' | wc -l)" 0
finish
