#!/usr/bin/env bash
# Multipart uploads and downloads with the AWS CLI's defaults.
#
# `aws s3 cp` switches to multipart above 8 MiB (8 MiB parts, 10 in parallel)
# and downloads large objects with parallel ranged GETs. This script moves a
# 100 MiB file up and down (from a file, from stdin, and server-side copied),
# and a 1 GiB file up and down, comparing every byte read back. The server
# runs with the default --fsync always, so durability costs are real.
#
# JOG_SKIP_1GIB=1 skips the 1 GiB round trip. Needs: go, aws, python3, curl,
# cmp. The user's AWS configuration is never read or written. Prints
# "N passed, M failed" and exits non-zero when any check failed.
name=awscli-multipart
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools aws

start_jog server --fsync always
endpoint=$jog_endpoint

# Path-style addressing; every s3 transfer setting stays at its default.
aws_cli_env

s3() { aws --endpoint-url "$endpoint" s3 "$@"; }
s3api() { aws --endpoint-url "$endpoint" s3api "$@"; }

# random_file FILE MIB: MIB MiB of pseudo-random bytes (fast, every MiB distinct).
random_file() {
	python3 -c 'import random,sys
r=random.Random(); n=int(sys.argv[2])
with open(sys.argv[1],"wb") as f:
    for _ in range(n): f.write(r.randbytes(1<<20))' "$1" "$2"
}
# multipart_etag FILE PART-SIZE: the S3 ETag of FILE uploaded in parts.
multipart_etag() {
	python3 -c 'import hashlib,sys
size=int(sys.argv[2]); ds=[]
with open(sys.argv[1],"rb") as f:
    for b in iter(lambda: f.read(size), b""): ds.append(hashlib.md5(b).digest())
print("%s-%d" % (hashlib.md5(b"".join(ds)).hexdigest(), len(ds)))' "$1" "$2"
}

echo "aws: $(aws --version 2>&1)"
work=$tmp/work
mkdir -p "$work"
MiB=$((1 << 20))

check "s3 mb" s3 mb s3://cli-mp

# --- 100 MiB ------------------------------------------------------------------
random_file "$work/100m.bin" 100
etag100=$(multipart_etag "$work/100m.bin" $((8 * MiB)))
timed "s3 cp 100 MiB up (multipart, 13 parts of 8 MiB)" s3 cp --no-progress "$work/100m.bin" s3://cli-mp/100m.bin
check "s3api head-object of the 100 MiB object" s3api head-object --bucket cli-mp --key 100m.bin
expect "ContentLength is 100 MiB" "d['ContentLength'] == $((100 * MiB))"
expect "ETag is the MD5 of the 13 part MD5s ($etag100)" "d['ETag'].strip('\"') == '$etag100'"
check "s3api get-object-attributes ObjectParts" \
	s3api get-object-attributes --bucket cli-mp --key 100m.bin --object-attributes ObjectParts ObjectSize ETag
expect "13 parts, ObjectSize 100 MiB" "d['ObjectParts']['TotalPartsCount'] == 13 and d['ObjectSize'] == $((100 * MiB))"
check "s3api head-object --part-number 13" s3api head-object --bucket cli-mp --key 100m.bin --part-number 13
expect "part 13 is the last 4 MiB" "d['ContentLength'] == $((4 * MiB)) and d['PartsCount'] == 13"
timed "s3 cp 100 MiB down (parallel ranged GETs)" s3 cp --no-progress s3://cli-mp/100m.bin "$work/100m.down"
check "100 MiB round trip is byte-exact (cmp)" cmp "$work/100m.bin" "$work/100m.down"
rm -f "$work/100m.down"
check "s3api get-object --part-number 2" s3api get-object --bucket cli-mp --key 100m.bin --part-number 2 "$work/part2"
check "part 2 is bytes 8..16 MiB of the file" cmp "$work/part2" <(tail -c +$((8 * MiB + 1)) "$work/100m.bin" | head -c $((8 * MiB)))
rm -f "$work/part2"

# --checksum-algorithm SHA256: a composite SHA256 of the 13 part SHA256s.
composite_sha256=$(python3 -c 'import base64,hashlib,sys
ds=[]
with open(sys.argv[1],"rb") as f:
    for b in iter(lambda: f.read(8<<20), b""): ds.append(hashlib.sha256(b).digest())
print("%s-%d" % (base64.b64encode(hashlib.sha256(b"".join(ds)).digest()).decode(), len(ds)))' "$work/100m.bin")
timed "s3 cp 100 MiB up --checksum-algorithm SHA256" \
	s3 cp --no-progress --checksum-algorithm SHA256 "$work/100m.bin" s3://cli-mp/sha256.bin
check "s3api head-object --checksum-mode ENABLED" s3api head-object --bucket cli-mp --key sha256.bin --checksum-mode ENABLED
expect "ChecksumSHA256 is the composite of the part SHA256s ($composite_sha256)" \
	"d.get('ChecksumSHA256') == '$composite_sha256' and d.get('ChecksumType') == 'COMPOSITE'"
check "s3api get-object-attributes --object-attributes Checksum ObjectParts" \
	s3api get-object-attributes --bucket cli-mp --key sha256.bin --object-attributes Checksum ObjectParts
expect "attributes carry the composite SHA256 and 13 parts" \
	"d['Checksum'].get('ChecksumSHA256') == '$composite_sha256'.split('-')[0] and d['ObjectParts']['TotalPartsCount'] == 13"
check "s3 cp the SHA256 object down" s3 cp --no-progress s3://cli-mp/sha256.bin "$work/sha256.down"
check "SHA256 object round trip is byte-exact (cmp)" cmp "$work/100m.bin" "$work/sha256.down"
rm -f "$work/sha256.down"

# From stdin: the size is unknown, the CLI streams it in 8 MiB parts.
timed "s3 cp - (100 MiB from stdin, multipart)" s3 cp --no-progress - s3://cli-mp/stdin.bin <"$work/100m.bin"
check "s3api head-object of the stdin upload" s3api head-object --bucket cli-mp --key stdin.bin
expect "stdin upload has 100 MiB and the 13-part ETag" \
	"d['ContentLength'] == $((100 * MiB)) and d['ETag'].strip('\"') == '$etag100'"
check "s3 cp to stdout is byte-exact" bash -c 'aws --endpoint-url "$1" s3 cp --no-progress s3://cli-mp/stdin.bin - | cmp - "$2"' _ "$endpoint" "$work/100m.bin"

# Server-side copy: above 8 MiB the CLI copies with UploadPartCopy.
timed "s3 cp s3:// s3:// (100 MiB, UploadPartCopy)" s3 cp --no-progress s3://cli-mp/100m.bin s3://cli-mp/copy/100m.bin
check "s3api head-object of the copy" s3api head-object --bucket cli-mp --key copy/100m.bin
expect "the copy has 100 MiB in 13 parts" \
	"d['ContentLength'] == $((100 * MiB)) and d['ETag'].strip('\"') == '$etag100'"
check "s3 cp the copy down" s3 cp --no-progress s3://cli-mp/copy/100m.bin "$work/copy.down"
check "the copy is byte-exact (cmp)" cmp "$work/100m.bin" "$work/copy.down"
rm -f "$work/copy.down"

# An aborted upload leaves nothing behind.
check "s3api create-multipart-upload" s3api create-multipart-upload --bucket cli-mp --key aborted
upload_id=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["UploadId"])' "$out" 2>/dev/null || true)
head -c $((5 * MiB)) "$work/100m.bin" >"$work/part1"
check "s3api upload-part" s3api upload-part --bucket cli-mp --key aborted --upload-id "$upload_id" --part-number 1 --body "$work/part1"
check "s3api list-multipart-uploads" s3api list-multipart-uploads --bucket cli-mp
expect "the upload is listed" "[u['UploadId'] for u in d.get('Uploads', [])] == ['$upload_id']"
check "s3api list-parts" s3api list-parts --bucket cli-mp --key aborted --upload-id "$upload_id"
expect "one 5 MiB part" "[(p['PartNumber'], p['Size']) for p in d['Parts']] == [(1, $((5 * MiB)))]"
check "s3api abort-multipart-upload" s3api abort-multipart-upload --bucket cli-mp --key aborted --upload-id "$upload_id"
check "s3api list-multipart-uploads after abort" s3api list-multipart-uploads --bucket cli-mp
expect "no uploads left" "not d.get('Uploads')"
check_fails "list-parts of the aborted upload" NoSuchUpload s3api list-parts --bucket cli-mp --key aborted --upload-id "$upload_id"
rm -f "$work/part1"

check "s3 rm --recursive" s3 rm --recursive s3://cli-mp

# --- 100 MiB over HTTPS: aws-chunked parts with CRC32 trailers ---------------------
start_jog tls --tls --fsync always
tls_endpoint=$jog_endpoint
s3tls() { AWS_CA_BUNDLE=$tmp/tls/cert.pem aws --endpoint-url "$tls_endpoint" s3 "$@"; }
check "s3 mb over HTTPS (certificate verified with AWS_CA_BUNDLE)" s3tls mb s3://cli-mp-tls
timed "s3 cp 100 MiB up over HTTPS (STREAMING-UNSIGNED-PAYLOAD-TRAILER parts)" \
	s3tls cp --no-progress "$work/100m.bin" s3://cli-mp-tls/100m.bin
check "s3api head-object over HTTPS" env AWS_CA_BUNDLE="$tmp/tls/cert.pem" \
	aws --endpoint-url "$tls_endpoint" s3api head-object --bucket cli-mp-tls --key 100m.bin --checksum-mode ENABLED
expect "13-part ETag and a composite CRC32 of 13 parts" \
	"d['ETag'].strip('\"') == '$etag100' and d.get('ChecksumCRC32', '').endswith('-13')"
timed "s3 cp 100 MiB down over HTTPS" s3tls cp --no-progress s3://cli-mp-tls/100m.bin "$work/100m.down"
check "100 MiB HTTPS round trip is byte-exact (cmp)" cmp "$work/100m.bin" "$work/100m.down"
rm -f "$work/100m.down" "$work/100m.bin"
check "s3 rb --force over HTTPS" s3tls rb --force s3://cli-mp-tls

# --- 1 GiB --------------------------------------------------------------------
if [[ ${JOG_SKIP_1GIB:-} == 1 ]]; then
	skip "1 GiB round trip (JOG_SKIP_1GIB=1)"
else
	start=$SECONDS
	random_file "$work/1g.bin" 1024
	echo "     (1 GiB of random data written in $((SECONDS - start)) s)"
	etag1g=$(multipart_etag "$work/1g.bin" $((8 * MiB)))
	timed "s3 cp 1 GiB up (128 parts, fsync always)" s3 cp --no-progress "$work/1g.bin" s3://cli-mp/1g.bin
	check "s3api head-object of the 1 GiB object" s3api head-object --bucket cli-mp --key 1g.bin
	expect "1 GiB object has the 128-part ETag ($etag1g)" \
		"d['ContentLength'] == $((1024 * MiB)) and d['ETag'].strip('\"') == '$etag1g'"
	timed "s3 cp 1 GiB down" s3 cp --no-progress s3://cli-mp/1g.bin "$work/1g.down"
	timed "1 GiB round trip is byte-exact (cmp)" cmp "$work/1g.bin" "$work/1g.down"
	rm -f "$work/1g.down" "$work/1g.bin"
	check "s3 rm of the 1 GiB object" s3 rm s3://cli-mp/1g.bin
fi

check "s3 ls --recursive is empty" s3 ls --recursive s3://cli-mp
expect_empty "nothing left in the bucket"
check "s3 rb" s3 rb s3://cli-mp
finish
