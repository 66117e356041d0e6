#!/usr/bin/env bash
# End-to-end check of JOG with s3cmd (Debian's package, /usr/bin/s3cmd).
#
# Runs the same commands twice - with SigV4 (signature_v2 = False) and with
# SigV2 (signature_v2 = True) - from a config file in the temporary directory
# (the user's ~/.s3cfg is never read): mb, put (a small file, and 20 MiB with
# --multipart-chunk-size-mb=5: a 4-part multipart upload), get + cmp, ls, la,
# info, cp, mv, signurl, sync of a small tree up and down + diff -r, del, rb;
# then setacl --acl-public, refused by a default server and taken by one
# started with --default-object-ownership ObjectWriter.
#
# Needs: go, /usr/bin/s3cmd, python3, curl, cmp, diff. Prints
# "N passed, M failed" and exits non-zero when any check failed.
name=s3cmd
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# A pip-installed s3cmd may come first on PATH: use Debian's explicitly.
s3cmd_bin=${S3CMD:-/usr/bin/s3cmd}
need_tools "$s3cmd_bin" diff

start_jog server
echo "s3cmd: $("$s3cmd_bin" --version)"

work=$tmp/work
mkdir -p "$work"
MiB=$((1 << 20))
printf 'hello from s3cmd\n' >"$work/small.txt"
python3 -c 'import random,sys; open(sys.argv[1],"wb").write(random.Random(3).randbytes(20 << 20))' "$work/20m.bin"
tree=$work/tree
for d in . a a/b "with space" "ünï"; do
	mkdir -p "$tree/$d"
	for i in 1 2 3 4 5; do
		head -c $((RANDOM * 3 + i)) /dev/urandom >"$tree/$d/f$i.dat"
	done
done
: >"$tree/a/empty"
ntree=$(find "$tree" -type f | wc -l)

for sig in v4 v2; do
	cfg=$tmp/s3cfg-$sig
	v2=False
	[[ $sig == v2 ]] && v2=True
	cat >"$cfg" <<EOF
[default]
access_key = $access_key
secret_key = $secret_key
host_base = 127.0.0.1:$jog_port
host_bucket = 127.0.0.1:$jog_port
bucket_location = $region
use_https = False
signature_v2 = $v2
check_ssl_certificate = False
progress_meter = False
EOF
	s3c() { "$s3cmd_bin" -c "$cfg" "$@"; }
	b=s3://s3cmd-$sig
	p="[$sig]"

	check "$p s3cmd mb" s3c mb "$b"
	check "$p s3cmd ls lists the bucket" s3c ls
	expect_grep "$p ls names the bucket" " $b\$"
	check "$p s3cmd put small" s3c put "$work/small.txt" "$b/small.txt"
	timed "$p s3cmd put 20 MiB --multipart-chunk-size-mb=5" \
		s3c put --multipart-chunk-size-mb=5 "$work/20m.bin" "$b/dir/20m.bin"
	timed "$p s3cmd put - (20 MiB from stdin, multipart)" \
		bash -c '"$@" <"$0"' "$work/20m.bin" "$s3cmd_bin" -c "$cfg" put --multipart-chunk-size-mb=5 - "$b/stdin.bin"
	check "$p s3cmd get of the stdin upload" s3c get --force "$b/stdin.bin" "$work/stdin.down"
	check "$p stdin upload is byte-exact" cmp "$work/20m.bin" "$work/stdin.down"
	rm -f "$work/stdin.down"
	check "$p s3cmd multipart (no uploads in progress)" s3c multipart "$b"
	expect_lines "$p no upload listed (only the two header lines)" 2
	check "$p s3cmd get small" s3c get --force "$b/small.txt" "$work/small.down"
	check "$p small round trip is byte-exact" cmp "$work/small.txt" "$work/small.down"
	timed "$p s3cmd get 20 MiB" s3c get --force "$b/dir/20m.bin" "$work/20m.down"
	check "$p 20 MiB round trip is byte-exact" cmp "$work/20m.bin" "$work/20m.down"
	rm -f "$work/20m.down"
	check "$p s3cmd ls $b" s3c ls "$b"
	expect_grep "$p ls shows DIR dir/" "DIR  *$b/dir/\$"
	expect_grep "$p ls shows small.txt with its size" " 17  *$b/small.txt\$"
	check "$p s3cmd ls --recursive" s3c ls --recursive "$b"
	expect_grep "$p ls -r shows the 20 MiB file with its size" " $((20 * MiB))  *$b/dir/20m.bin\$"
	check "$p s3cmd la" s3c la
	expect_grep "$p la lists the objects" "$b/small.txt\$"
	check "$p s3cmd info of the multipart object" s3c info "$b/dir/20m.bin"
	expect_grep "$p info shows the size" "File size: $((20 * MiB))"
	expect_grep "$p info shows the MD5 of the content" "MD5 sum: *$(md5_of "$work/20m.bin")"
	# s3cmd prints the response headers with --debug: the ETag shows the parts.
	check "$p s3cmd --debug info" s3c --debug info "$b/dir/20m.bin"
	if ((last_ok)) && grep -q "'etag': '\"[0-9a-f]\{32\}-4\"'" "$err"; then
		ok "$p the 20 MiB file went up as a 4-part multipart upload (ETag ...-4)"
	else
		bad "$p the 20 MiB file went up as a 4-part multipart upload (ETag ...-4)"
	fi
	check "$p s3cmd info of the bucket" s3c info "$b"
	expect_grep "$p bucket info shows the location" "Location: *$region"
	check "$p s3cmd du" s3c du "$b"
	expect_grep "$p du counts 3 objects, $((40 * MiB + 17)) bytes" "^ *$((40 * MiB + 17)) *3 objects $b/\$"
	check "$p s3cmd cp" s3c cp "$b/dir/20m.bin" "$b/copy/20m.bin"
	check "$p s3cmd get of the copy" s3c get --force "$b/copy/20m.bin" "$work/copy.down"
	check "$p the copy is byte-exact" cmp "$work/20m.bin" "$work/copy.down"
	rm -f "$work/copy.down"
	check "$p s3cmd mv" s3c mv "$b/copy/20m.bin" "$b/moved.bin"
	check "$p s3cmd ls after mv" s3c ls --recursive "$b"
	expect_grep "$p mv created the destination" "$b/moved.bin\$"
	expect_no_grep "$p mv removed the source" "$b/copy/"
	check "$p s3cmd signurl" s3c signurl "$b/small.txt" +300
	url=$(tail -n 1 "$out")
	check "$p the signed URL serves the object" curl -sf -o "$work/signed.down" "$url"
	check "$p signed URL download is byte-exact" cmp "$work/small.txt" "$work/signed.down"
	check "$p s3cmd sync up ($ntree files)" s3c sync "$tree/" "$b/tree/"
	check "$p s3cmd ls --recursive of the synced tree" s3c ls --recursive "$b/tree/"
	expect_lines "$p every synced file is listed" "$ntree"
	check "$p second s3cmd sync up" s3c sync "$tree/" "$b/tree/"
	expect_no_grep "$p second sync uploads nothing" "upload:"
	check "$p s3cmd sync down" s3c sync "$b/tree/" "$work/tree-$sig/"
	check "$p synced tree round trip is identical (diff -r)" diff -r "$tree" "$work/tree-$sig"
	check "$p s3cmd del of one object" s3c del "$b/small.txt"
	check "$p s3cmd get of the deleted object fails" bash -c '! "$@"' _ "$s3cmd_bin" -c "$cfg" get --force "$b/small.txt" "$work/gone"
	check_fails "$p s3cmd rb of a non-empty bucket" BucketNotEmpty s3c rb "$b"
	check "$p s3cmd del --recursive --force" s3c del --recursive --force "$b"
	check "$p s3cmd ls of the emptied bucket" s3c ls --recursive "$b"
	expect_empty "$p nothing is left"
	check "$p s3cmd rb" s3c rb "$b"
	check "$p s3cmd ls after rb" s3c ls
	expect_no_grep "$p the bucket is gone" " $b\$"
done

# ACLs (SigV4): a default server's new buckets are BucketOwnerEnforced, as
# S3's since April 2023, and refuse setacl --acl-public; a server started
# with --default-object-ownership ObjectWriter creates buckets that take
# it, and serves the object to an anonymous GET.
anon_status() { curl -s -o /dev/null -w '%{http_code}' "$1"; }
s3c() { "$s3cmd_bin" -c "$tmp/s3cfg-v4" "$@"; }
check "s3cmd mb (ACLs disabled)" s3c mb s3://s3cmd-acl
check "s3cmd put" s3c put "$work/small.txt" s3://s3cmd-acl/small.txt
check_fails "setacl --acl-public where ACLs are disabled" AccessControlListNotSupported \
	s3c setacl --acl-public s3://s3cmd-acl/small.txt
check "the object stays private" test "$(anon_status "$jog_endpoint/s3cmd-acl/small.txt")" = 403
default_port=$jog_port
start_jog acl -- --default-object-ownership ObjectWriter
sed "s/127.0.0.1:$default_port/127.0.0.1:$jog_port/" "$tmp/s3cfg-v4" >"$tmp/s3cfg-acl"
s3c() { "$s3cmd_bin" -c "$tmp/s3cfg-acl" "$@"; }
check "s3cmd mb (--default-object-ownership ObjectWriter)" s3c mb s3://s3cmd-acl
check "s3cmd put" s3c put "$work/small.txt" s3://s3cmd-acl/small.txt
check "the object is private before setacl" test "$(anon_status "$jog_endpoint/s3cmd-acl/small.txt")" = 403
check "s3cmd setacl --acl-public" s3c setacl --acl-public s3://s3cmd-acl/small.txt
check "an anonymous GET serves it" curl -sf -o "$work/anon.down" "$jog_endpoint/s3cmd-acl/small.txt"
check "the anonymous download is byte-exact" cmp "$work/small.txt" "$work/anon.down"
check "s3cmd setacl --acl-private" s3c setacl --acl-private s3://s3cmd-acl/small.txt
check "the object is private again" test "$(anon_status "$jog_endpoint/s3cmd-acl/small.txt")" = 403

check_fails "a wrong secret key is refused" SignatureDoesNotMatch \
	"$s3cmd_bin" -c "$tmp/s3cfg-v4" --secret_key=wrong-secret-key-000 ls
finish
