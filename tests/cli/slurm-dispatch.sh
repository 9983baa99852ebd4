# GPU steps dispatched through Slurm: a real single-node cluster
# (slurmctld + slurmd + munged from Debian's slurm-wlm, started here on free
# ports with files in the test folder) runs every GPU step of a run with
# `srun -n1` as the launcher. The GPU tools are the fakes (this tests
# dispatch, not GPUs); on a GPU cluster the launcher would be
# `srun -n1 --gres=gpu:1`.
. "$(dirname "$0")/../lib.sh"
for t in slurmctld slurmd srun munged; do
	command -v $t >/dev/null 2>&1 || [ -x /usr/sbin/$t ] || { skip slurm-dispatch "$t is not installed (Debian: slurm-wlm, munge)"; finish; }
done
PATH=$PATH:/usr/sbin
D=$DATA/run
cd "$T" || exit 1
mkdir -p bin state spool
for f in "$CKO_BIN"/cko-*; do ln -s "$f" bin/; done
for f in cko-props cko-run cko-bench; do rm -f bin/$f; cp "$CKO_TOP/tests/fake-gpu/$f" bin/$f; done
cp "$CKO_TOP/tests/fake-gpu/common.sh" bin/
export CKO_LOCK_DIR=$T/locks

dd if=/dev/urandom of=munge.key bs=1024 count=1 2>/dev/null && chmod 400 munge.key
munged --force --key-file="$T/munge.key" --socket="$T/munge.sock" --pid-file="$T/munged.pid" \
	--log-file="$T/munged.log" --seed-file="$T/munged.seed" 2>munged.err || { skip slurm-dispatch "munged does not start: $(head -c 200 munged.err)"; finish; }
port=$(( 20000 + $$ % 20000 ))
user=$(id -un)
cat >slurm.conf <<C
ClusterName=ckotest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmUser=$user
SlurmdUser=$user
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
C
export SLURM_CONF=$T/slurm.conf
stop() {
	for p in slurmd slurmctld munged; do [ -f "$T/$p.pid" ] && kill "$(cat "$T/$p.pid")" 2>/dev/null; done
}
trap stop EXIT
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" || { skip slurm-dispatch "the Slurm daemons do not start: $(tail -3 slurmctld.log slurmd.log 2>/dev/null)"; finish; }
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
expect_status slurm/cluster-up 0 timeout 30 srun -n1 true

run=$(cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
	--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
	--space "$D/space.json" --candidates 2 --max-iterations 1 --launcher "srun -n1 --quiet" --results "$T/r")
expect_grep slurm/run-mk-launcher "^LAUNCHER +:= srun -n1 --quiet" "$run/run.mk"
FAKE_GPU_LOG=$T/gpu.log expect_status slurm/run 0 timeout 300 make -C "$run" -f run.mk CKO_BIN="$T/bin" -j3
expect_jq slurm/history '(.candidates | length) == 3 and .best != null' "$run/history.json"
# Every GPU step ran as a Slurm job step.
n=$(grep -c '^start' "$T/gpu.log")
s=$(awk '$1 == "start" && $7 != "none"' "$T/gpu.log" | wc -l)
[ "$n" -gt 0 ] && [ "$n" = "$s" ] && ok slurm/gpu-steps-in-slurm || fail slurm/gpu-steps-in-slurm "$s of $n GPU steps had a SLURM_JOB_ID: $(head -5 "$T/gpu.log")"
finish
