# cko-lock: the command runs holding the slot's lock; the lock folder is
# made 0700 and refused (exit 3, naming it and what to do) when another
# user owns it, others may write into it, or it is a link; lock files are
# 0600.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
unset CKO_GPUS CUDA_VISIBLE_DEVICES
expect_status lock/runs 0 cko-lock -d "$T/l" -- sh -c 'echo "$CKO_GPU_SLOT" >slot'
# flock -n on the slot fails (status 1) while the command runs: it holds the lock.
expect_status lock/held-by-command 1 cko-lock -d "$T/l" -- flock -n "$T/l/gpu-0.lock" true
expect_eq lock/slot "$(cat slot)" 0
expect_eq lock/folder-mode "$(stat -c %a "$T/l")" 700
expect_eq lock/file-mode "$(stat -c %a "$T/l/gpu-0.lock")" 600
mkdir -m 700 old && : >old/gpu-0.lock && chmod 666 old/gpu-0.lock
expect_status lock/old-file 0 cko-lock -d "$T/old" -- true
expect_eq lock/old-file-tightened "$(stat -c %a "$T/old/gpu-0.lock")" 600

mkdir open && chmod 777 open
expect_status lock/writable-by-others 3 cko-lock -d "$T/open" -- true
expect_grep lock/writable-by-others-says "$T/open: the lock folder is writable by others \(mode 0777\): chmod go-w $T/open" "$T/last.err"
[ ! -e open/gpu-0.lock ] && ok lock/writable-no-file || fail lock/writable-no-file "a lock file was made"
mkdir -m 700 real && ln -s real link
expect_status lock/link 3 cko-lock -d "$T/link" -- true
expect_grep lock/link-says "$T/link: .*must be a folder, not a link" "$T/last.err"
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -m 700 theirs && chown nobody theirs
	expect_status lock/other-owner 3 cko-lock -d "$T/theirs" -- true
	expect_grep lock/other-owner-says "$T/theirs: the lock folder is owned by uid $(id -u nobody), not by you \(uid 0\).*remove it, or give a folder of your own" "$T/last.err"
	CKO_LOCK_DIR=$T/theirs expect_status lock/other-owner-env 3 cko-lock -- true
else
	skip lock/other-owner "needs root to chown a folder to nobody"
fi
expect_status lock/no-parent 2 cko-lock -d "$T/no/such" -- true
expect_grep lock/no-parent-says "folder $T/no does not exist" "$T/last.err"
finish
