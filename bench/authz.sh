#!/usr/bin/env bash
# What authorization costs (issue 21, item 7): GET 1 KiB at concurrency 16
# on one JOG server, signed by the root credentials (no policy is read) and
# by an IAM user whose three attached managed policies and the bucket's
# 20-statement policy are evaluated on every request. The two principals
# take turns (the first alternates from pair to pair) on the same bucket,
# each run on its own prefix.
#
#   bench/authz.sh                         # 3 pairs, 10 s per run
#   PAIRS=5 DURATION=20s bench/authz.sh
#   PROFILE=1 PAIRS=1 DURATION=30s bench/authz.sh   # and CPU profiles of both
#
# Results: $OUT (bench/results/<date>-authz/) holds one JSON file per run,
# <principal>-get-1KiB-p<pair>.json; `jog bench compare --baseline jog-root
# $OUT/*.json` gives the ratio (the user's obj/s over the root's).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
DURATION=${DURATION:-10s}
SIZE=${SIZE:-1KiB}
OUT=${OUT:-bench/results/$(date -u +%F)-authz}
ADDR=127.0.0.1:${PORT:-9418}
mkdir -p "$OUT"
. bench/jogserver.sh
# PROFILE=1: a CPU profile of the server during each principal's run of
# the first pair, $OUT/<principal>.pprof (the server's --debug-addr).
DEBUG=127.0.0.1:$((${PORT:-9418} + 1))
start_jog --lifecycle-interval 0 --debug-addr "$DEBUG"
b=authz-bench
aws_s3 create-bucket --bucket "$b"
admin() { "$bin" admin -endpoint "http://$ADDR" "$@"; }
tmp=$(mktemp -d)
trap 'kill $pid; wait $pid 2>/dev/null; rm -rf "$data" "$log" "${bin%/jog}" "$tmp"' EXIT
user_arn=$(admin user create bench-user | cut -f2)
read -r ukey usecret < <(admin key create bench-user | tr '\t' ' ')
acct=$(echo "$user_arn" | cut -d: -f5)

# Three identity policies: what the workload needs, spread over them, with
# conditions to evaluate, and a Deny that does not apply.
cat >"$tmp/p1.json" <<JSON
{"Version":"2012-10-17","Statement":[
 {"Sid":"Read","Effect":"Allow","Action":["s3:GetObject","s3:GetObjectVersion"],"Resource":"arn:aws:s3:::$b/*",
  "Condition":{"IpAddress":{"aws:SourceIp":["127.0.0.0/8","10.0.0.0/8"]}}},
 {"Sid":"NoSecrets","Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::$b/secret/*"}]}
JSON
cat >"$tmp/p2.json" <<JSON
{"Version":"2012-10-17","Statement":[
 {"Sid":"Write","Effect":"Allow","Action":["s3:PutObject","s3:DeleteObject"],"Resource":["arn:aws:s3:::$b/bench/*","arn:aws:s3:::$b/\${aws:username}/*"]},
 {"Sid":"NotBefore","Effect":"Deny","Action":"s3:*","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"2020-01-01T00:00:00Z"}}}]}
JSON
cat >"$tmp/p3.json" <<JSON
{"Version":"2012-10-17","Statement":[
 {"Sid":"List","Effect":"Allow","Action":["s3:ListBucket","s3:ListBucketVersions"],"Resource":"arn:aws:s3:::$b"},
 {"Sid":"NoAdmin","Effect":"Deny","Action":["s3:DeleteBucket","s3:PutBucketPolicy","s3:PutBucketVersioning"],"Resource":"*"},
 {"Sid":"TagsOnly","Effect":"Allow","Action":"s3:GetObjectTagging","Resource":"arn:aws:s3:::$b/*","Condition":{"StringEquals":{"aws:PrincipalType":"User"}}}]}
JSON
for i in 1 2 3; do
	admin policy create "bench-p$i" "$tmp/p$i.json" >/dev/null
	admin policy attach bench-user "bench-p$i"
done

# A 20-statement bucket policy: Denies for other prefixes, addresses and
# principals, Allows to other principals, and one Allow the user matches.
{
	echo '{"Version":"2012-10-17","Statement":['
	for i in $(seq 1 8); do
		echo "{\"Sid\":\"DenyArchive$i\",\"Effect\":\"Deny\",\"Principal\":\"*\",\"Action\":\"s3:*\",\"Resource\":\"arn:aws:s3:::$b/archive$i/*\"},"
	done
	for i in $(seq 1 5); do
		echo "{\"Sid\":\"Partner$i\",\"Effect\":\"Allow\",\"Principal\":{\"AWS\":\"arn:aws:iam::$acct:user/partner$i\"},\"Action\":[\"s3:GetObject\",\"s3:ListBucket\"],\"Resource\":[\"arn:aws:s3:::$b\",\"arn:aws:s3:::$b/shared$i/*\"]},"
	done
	for i in $(seq 1 4); do
		echo "{\"Sid\":\"DenyNet$i\",\"Effect\":\"Deny\",\"Principal\":\"*\",\"Action\":\"s3:PutObject\",\"Resource\":\"arn:aws:s3:::$b/*\",\"Condition\":{\"IpAddress\":{\"aws:SourceIp\":\"192.0.$i.0/24\"}}},"
	done
	echo "{\"Sid\":\"PublicDocs\",\"Effect\":\"Allow\",\"Principal\":\"*\",\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::$b/public/*\",\"Condition\":{\"StringLike\":{\"aws:Referer\":\"https://example.com/*\"}}},"
	echo "{\"Sid\":\"TLSForUploads\",\"Effect\":\"Deny\",\"Principal\":\"*\",\"Action\":\"s3:PutObject\",\"Resource\":\"arn:aws:s3:::$b/uploads/*\",\"Condition\":{\"Bool\":{\"aws:SecureTransport\":\"false\"}}},"
	echo "{\"Sid\":\"BenchUser\",\"Effect\":\"Allow\",\"Principal\":{\"AWS\":\"$user_arn\"},\"Action\":[\"s3:GetObject\",\"s3:PutObject\",\"s3:DeleteObject\",\"s3:ListBucket\"],\"Resource\":[\"arn:aws:s3:::$b\",\"arn:aws:s3:::$b/*\"]}"
	echo ']}'
} >"$tmp/bucket.json"
aws_s3 put-bucket-policy --bucket "$b" --policy "file://$tmp/bucket.json"
n=$(python3 -c "import json,sys; print(len(json.load(open('$tmp/bucket.json'))['Statement']))")
echo "bucket policy: $n statements; user policies: 3 attached"

run() { # principal pair
	local key=$AWS_ACCESS_KEY_ID secret=$AWS_SECRET_ACCESS_KEY
	if [ "$1" = user ]; then key=$ukey secret=$usecret; fi
	if [ -n "${PROFILE:-}" ] && [ "$2" = 1 ]; then
		secs=${DURATION%s}
		(sleep 3 && curl -s -o "$OUT/$1.pprof" "http://$DEBUG/debug/pprof/profile?seconds=$((secs - 5))") &
	fi
	"$bin" bench get --endpoint "http://$ADDR" --access-key "$key" --secret-key "$secret" \
		--bucket "$b" --prefix "bench/$1-$2/" --size "$SIZE" --concurrency 16 --duration "$DURATION" \
		--label "jog-$1" --server-pid "$pid" --quiet --out "$OUT/$1-get-$SIZE-p$2.json" >/dev/null
	echo "$(date -u +%T) $1 pair $2 load $(cut -d' ' -f1 /proc/loadavg)"
}
for p in $(seq 1 "$PAIRS"); do
	kinds="root user"
	if [ $((p % 2)) = 0 ]; then kinds="user root"; fi
	for k in $kinds; do run "$k" "$p"; done
done
echo "requests of the user denied: $(grep "access denied" "$log" | grep -c bench-user || true)"
"$bin" bench compare --baseline jog-root "$OUT"/*.json
