# Output targets that are not regular files: a device node, a FIFO, a
# symlink to either are written through and stay what they were; a symlink
# to a regular file is replaced itself (its target, in another folder, is
# untouched); a folder is refused. The device is one this test makes, never
# the machine's /dev/null.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
cko-npy -t f32 -s 2 -o e.npy -- 1 2
cko-npy -t f32 -s 2 -o a.npy -- 1 2

if mknod null c 1 3 2>/dev/null; then
	expect_status write/device 0 cko-compare -o null e.npy a.npy
	if [ -c null ]; then ok write/device-stays; else fail write/device-stays "$(ls -l null)"; fi
	ln -s null devlink
	expect_status write/link-to-device 0 cko-compare -o devlink e.npy a.npy
	if [ -L devlink ] && [ -c null ]; then ok write/link-to-device-stays; else fail write/link-to-device-stays "$(ls -l devlink null)"; fi
else
	skip write/device "mknod needs root (CAP_MKNOD)"
fi

mkfifo fifo
cat fifo >fifo.out &
reader=$!
expect_status write/fifo 0 cko-compare -o fifo e.npy a.npy
wait $reader
if [ -p fifo ]; then ok write/fifo-stays; else fail write/fifo-stays "$(ls -l fifo)"; fi
expect_jq write/fifo-content '.status == "ok"' fifo.out

mkdir other
echo keep >other/target.json
ln -s other/target.json link.json
expect_status write/link-to-file 0 cko-compare -o link.json e.npy a.npy
expect_eq write/link-target-untouched "$(cat other/target.json)" keep
if [ -f link.json ] && ! [ -L link.json ]; then ok write/link-replaced; else fail write/link-replaced "$(ls -l link.json)"; fi

mkdir dir.json
expect_status write/folder 2 cko-compare -o dir.json e.npy a.npy
expect_grep write/folder-message 'dir.json: is a folder' "$T/last.err"
finish
