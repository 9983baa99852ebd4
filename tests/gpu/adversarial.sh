# Verification integrity on the GPU: every kernel under
# tests/adversarial/proposals is a candidate of one real run; each must be
# rejected at the stage and with the reason tests/adversarial/expected.tsv
# gives, the run must finish, and the honest initial kernel must pass.
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/adversarial "no GPU"; finish; fi
A=$CKO_TOP/tests/adversarial
W=$CKO_TOP/workloads/sgemm
n=$(ls -d "$A"/proposals/iter-001/c* | wc -l)
run=$(cko-init --signature "$W/signature.json" --input-cases "$A/cases.json" --reference "$W/reference.cu" \
	--reference-launch "$W/reference-launch.json" --initial-kernel "$CKO_TOP/tests/gpu/kernels/naive_sgemm.cu" \
	--launch "$A/naive-launch.json" --proposals "$A/proposals" --candidates "$n" --max-iterations 1 --timeout 3 \
	--results "$T/results") || { fail gpu/adversarial-init "cko-init failed"; finish; }
start=$(date +%s)
make -C "$run" -f run.mk -j4 >"$T/make.log" 2>&1 && ok gpu/adversarial-run-finishes || fail gpu/adversarial-run-finishes "$(tail -20 "$T/make.log")"
echo "info gpu/adversarial: the run took $(( $(date +%s) - start )) s"
H=$run/history.json
expect_jq gpu/adversarial-honest-passes '.candidates[0].id == "iter-000/c0" and .candidates[0].status == "ok"' "$H"
grep -v '^#' "$A/expected.tsv" | while IFS='	' read -r c what stage pattern; do
	r=$(jq -c --arg id "iter-001/$c" '.candidates[] | select(.id == $id) | {status, stage, reason}' "$H")
	st=$(echo "$r" | jq -r .status) sg=$(echo "$r" | jq -r .stage) why=$(echo "$r" | jq -r .reason)
	echo "info adversarial $c $what: $st at $sg: $why"
	if [ "$st" = invalid ] && echo "$sg" | grep -Eqx "$stage" && echo "$why" | grep -Eq "$pattern"; then
		ok "gpu/adversarial-$what"
	else
		fail "gpu/adversarial-$what" "got $st at $sg ($why), want invalid at $stage matching /$pattern/"
	fi
done
expect_jq gpu/adversarial-best-is-honest '.best == "iter-000/c0"' "$H"
finish
