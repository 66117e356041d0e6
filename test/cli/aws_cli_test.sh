#!/usr/bin/env bash
# End-to-end check of JOG with the AWS CLI (`aws s3` and `aws s3api`).
#
# Builds jog, starts it on a free loopback port over a temporary data dir and
# drives it with whichever `aws` is on PATH (CI installs v1 from PyPI). The
# user's AWS configuration is never read or written: AWS_CONFIG_FILE and
# AWS_SHARED_CREDENTIALS_FILE point into the temporary directory.
#
# Needs: go, aws, python3, curl, cmp, diff. Prints "N passed, M failed" and
# exits non-zero when any check failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jog-cli-test.XXXXXX")
server_pid=""

cleanup() {
	local rc=$?
	if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	if ((rc != 0)) && [[ -f $tmp/server.log ]]; then
		echo "--- server log (last 40 lines) ---" >&2
		tail -n 40 "$tmp/server.log" >&2 || true
	fi
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT

for tool in go aws python3 curl cmp diff; do
	command -v "$tool" >/dev/null || { echo "aws_cli_test: $tool not found on PATH" >&2; exit 2; }
done

# --- build and start the server ---------------------------------------------
(cd "$root" && go build -o "$tmp/jog" ./cmd/jog)

access_key=JOGCLITESTKEY0000001
secret_key=jog-cli-test-secret-0000000000000000000
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
endpoint="http://127.0.0.1:$port"

# --fsync never: this test checks the protocol, not durability, and must not
# crawl when other tests load the disk.
"$tmp/jog" server --addr "127.0.0.1:$port" --data-dir "$tmp/data" \
	--access-key "$access_key" --secret-key "$secret_key" --region us-east-1 --fsync never --console=false \
	>"$tmp/server.out" 2>"$tmp/server.log" &
server_pid=$!

deadline=$((SECONDS + 10))
until curl -sf "$endpoint/health/ready" >/dev/null; do
	if ! kill -0 "$server_pid" 2>/dev/null; then
		echo "aws_cli_test: jog server exited before it was ready" >&2
		exit 1
	fi
	if ((SECONDS >= deadline)); then
		echo "aws_cli_test: jog server not ready on $endpoint within 10 s" >&2
		exit 1
	fi
	sleep 0.05
done

# --- an isolated AWS CLI configuration --------------------------------------
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_REGION
export AWS_CONFIG_FILE=$tmp/aws-config
export AWS_SHARED_CREDENTIALS_FILE=$tmp/aws-credentials
export AWS_ACCESS_KEY_ID=$access_key
export AWS_SECRET_ACCESS_KEY=$secret_key
export AWS_DEFAULT_REGION=us-east-1
export AWS_DEFAULT_OUTPUT=json
export AWS_PAGER=""
export AWS_EC2_METADATA_DISABLED=true
: >"$AWS_CONFIG_FILE"
: >"$AWS_SHARED_CREDENTIALS_FILE"
# Multipart upload is not implemented yet: keep every upload a single PUT.
aws configure set default.s3.multipart_threshold 64MB
aws configure set default.s3.multipart_chunksize 64MB
aws configure set default.s3.addressing_style path

s3() { aws --endpoint-url "$endpoint" s3 "$@"; }
s3api() { aws --endpoint-url "$endpoint" s3api "$@"; }

# --- check bookkeeping ------------------------------------------------------
pass=0
fail=0
out=$tmp/cmd.out
err=$tmp/cmd.err

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL $1" >&2
	for f in "$out" "$err"; do
		[[ -s $f ]] && sed 's/^/     | /' "$f" >&2
	done
	return 0
}
# check DESC CMD...: CMD must succeed; its stdout/stderr land in $out/$err.
check() {
	local desc=$1
	shift
	if "$@" >"$out" 2>"$err"; then ok "$desc"; else bad "$desc"; fi
}
# check_fails DESC PATTERN CMD...: CMD must fail with PATTERN in its stderr.
check_fails() {
	local desc=$1 pattern=$2
	shift 2
	if "$@" >"$out" 2>"$err"; then
		bad "$desc (succeeded, want failure with $pattern)"
	elif grep -q -- "$pattern" "$err"; then
		ok "$desc"
	else
		bad "$desc (failed without $pattern in stderr)"
	fi
}
# expect_grep DESC GREP-ARGS...: the last check's stdout matches.
expect_grep() {
	local desc=$1
	shift
	if grep -q "$@" "$out"; then ok "$desc"; else bad "$desc"; fi
}
# expect_no_grep DESC GREP-ARGS...: the last check's stdout does not match.
expect_no_grep() {
	local desc=$1
	shift
	if ! grep -q "$@" "$out"; then ok "$desc"; else bad "$desc"; fi
}
# expect_lines DESC N: the last check printed exactly N lines.
expect_lines() {
	if [[ $(wc -l <"$out") -eq $2 ]]; then ok "$1"; else bad "$1 (want $2 lines)"; fi
}
# expect_empty DESC: the last check printed nothing on stdout.
expect_empty() {
	if [[ ! -s $out ]]; then ok "$1"; else bad "$1"; fi
}
# expect DESC PYTHON-EXPR: evaluates EXPR with d = the JSON in $out.
expect() {
	local desc=$1 expr=$2
	if python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if ($expr) else 1)" "$out" 2>>"$err"; then ok "$desc"; else bad "$desc"; fi
}

check "banner names the listen address" grep -q "listening on 127.0.0.1:$port" "$tmp/server.out"

# --- aws s3: buckets, cp, ls ------------------------------------------------
work=$tmp/work
mkdir -p "$work"
printf 'hello from the aws cli\n' >"$work/small.txt"
head -c $((10 << 20)) /dev/urandom >"$work/big.bin"

check "s3 mb" s3 mb s3://cli-bucket
check "s3 mb of an existing bucket you own (us-east-1: 200, as S3)" s3 mb s3://cli-bucket
check "s3 cp small file up" s3 cp --no-progress "$work/small.txt" s3://cli-bucket/small.txt
check "s3 cp 10 MiB file up (single PUT)" s3 cp --no-progress "$work/big.bin" "s3://cli-bucket/dir/big file.bin"
check "s3 ls lists the bucket" s3 ls
expect_grep "s3 ls output names cli-bucket" ' cli-bucket$'
check "s3 ls s3://cli-bucket" s3 ls s3://cli-bucket
expect_grep "s3 ls shows small.txt with its size" ' 23 small.txt$'
expect_grep "s3 ls shows PRE dir/" 'PRE dir/$'
check "s3 ls --recursive" s3 ls --recursive s3://cli-bucket
expect_grep "s3 ls --recursive shows the big file with its size" " 10485760 dir/big file.bin$"
check "s3 cp small file down" s3 cp --no-progress s3://cli-bucket/small.txt "$work/small.down"
check "small file round trip is byte-exact" cmp "$work/small.txt" "$work/small.down"
check "s3 cp big file down" s3 cp --no-progress "s3://cli-bucket/dir/big file.bin" "$work/big.down"
check "10 MiB round trip is byte-exact" cmp "$work/big.bin" "$work/big.down"
check "s3api head-object ETag of the big file is its MD5 (single part)" \
	s3api head-object --bucket cli-bucket --key "dir/big file.bin"
expect "big file ETag is the plain MD5" \
	"d['ETag'].strip('\"') == '$(python3 -c 'import hashlib,sys;print(hashlib.md5(open(sys.argv[1],"rb").read()).hexdigest())' "$work/big.bin")'"
check_fails "s3 cp of a missing key" "404" s3 cp --no-progress s3://cli-bucket/missing "$work/missing"
# What JOG cannot carry out is refused, and nothing is stored.
check "s3 cp --sse AES256 (SSE-S3)" s3 cp --no-progress --sse AES256 "$work/small.txt" s3://cli-bucket/encrypted.txt
check "s3api head-object of the SSE-S3 object" s3api head-object --bucket cli-bucket --key encrypted.txt
expect "it reports ServerSideEncryption AES256" "d.get('ServerSideEncryption') == 'AES256'"
check_fails "s3 cp --acl public-read is refused (ACLs disabled: BucketOwnerEnforced)" "AccessControlListNotSupported" \
  s3 cp --no-progress --acl public-read "$work/small.txt" s3://cli-bucket/public.txt
check_fails "nothing was stored by the refused copy" "404" s3api head-object --bucket cli-bucket --key public.txt
check "s3 cp --acl private is accepted" s3 cp --no-progress --acl private "$work/small.txt" s3://cli-bucket/private.txt
check "s3 rm of it" s3 rm s3://cli-bucket/private.txt

# --- aws s3 sync of a tree, up and down -------------------------------------
tree=$work/tree
for d in a a/b a/b/c "with space" "ünï" deep/1/2/3/4; do
	mkdir -p "$tree/$d"
done
n=0
for d in . a a/b a/b/c "with space" "ünï" deep/1/2/3/4; do
	for i in 1 2 3 4 5 6 7; do
		n=$((n + 1))
		head -c $((n * 997)) /dev/urandom >"$tree/$d/file $i+$n.dat"
	done
done
: >"$tree/a/empty"
check "created a tree of $((n + 1)) files" test "$(find "$tree" -type f | wc -l)" -eq $((n + 1))
check "s3 sync up" s3 sync --no-progress "$tree" s3://cli-bucket/tree
check "s3 ls --recursive of the synced tree" s3 ls --recursive s3://cli-bucket/tree/
expect_lines "s3 ls --recursive lists every synced file" $((n + 1))
check "second s3 sync up" s3 sync --no-progress "$tree" s3://cli-bucket/tree
expect_empty "second s3 sync up transfers nothing"
check "s3 sync down" s3 sync --no-progress s3://cli-bucket/tree "$work/tree.down"
check "synced tree round trip is identical (diff -r)" diff -r "$tree" "$work/tree.down"
check "s3 rm --recursive" s3 rm --recursive s3://cli-bucket
check "bucket is empty after rm --recursive" s3 ls --recursive s3://cli-bucket
expect_empty "s3 ls --recursive printed nothing"
check "s3 rb" s3 rb s3://cli-bucket
check "s3 ls after rb" s3 ls
expect_no_grep "cli-bucket is gone" " cli-bucket$"

# --- aws s3api ----------------------------------------------------------------
printf 'Hello, s3api world!\n' >"$work/obj.txt"
check "s3api create-bucket" s3api create-bucket --bucket api-bucket
check "s3api put-object with metadata and content type" \
	s3api put-object --bucket api-bucket --key dir/obj.txt --body "$work/obj.txt" \
	--content-type "text/plain; charset=utf-8" --metadata color=blue,shape=round
expect "put-object returns the MD5 ETag" \
	"d['ETag'].strip('\"') == '$(python3 -c 'import hashlib,sys;print(hashlib.md5(open(sys.argv[1],"rb").read()).hexdigest())' "$work/obj.txt")'"
check "s3api head-object" s3api head-object --bucket api-bucket --key dir/obj.txt
expect "head-object ContentType" "d['ContentType'] == 'text/plain; charset=utf-8'"
expect "head-object Metadata" "d['Metadata'] == {'color': 'blue', 'shape': 'round'}"
expect "head-object ContentLength" "d['ContentLength'] == 20"
check "s3api get-object --range bytes=0-4" \
	s3api get-object --bucket api-bucket --key dir/obj.txt --range bytes=0-4 "$work/range.out"
expect "ranged get-object ContentRange" "d['ContentRange'] == 'bytes 0-4/20' and d['ContentLength'] == 5"
check "ranged get-object wrote the first 5 bytes" test "$(cat "$work/range.out")" = "Hello"
for k in dir/a dir/sub/b dir/sub/c top; do
	check "s3api put-object $k" s3api put-object --bucket api-bucket --key "$k" --body "$work/obj.txt"
done
check "s3api list-objects-v2 --prefix dir/ --delimiter /" \
	s3api list-objects-v2 --no-paginate --bucket api-bucket --prefix dir/ --delimiter /
expect "list-objects-v2 keys and common prefixes" \
	"[o['Key'] for o in d['Contents']] == ['dir/a', 'dir/obj.txt'] and [p['Prefix'] for p in d['CommonPrefixes']] == ['dir/sub/'] and d['KeyCount'] == 3"
check "s3api list-objects-v2 paginated (page size 2)" \
	s3api list-objects-v2 --bucket api-bucket --page-size 2
expect "the CLI's pages together hold every key" \
	"[o['Key'] for o in d['Contents']] == ['dir/a', 'dir/obj.txt', 'dir/sub/b', 'dir/sub/c', 'top']"
check "s3api copy-object" \
	s3api copy-object --bucket api-bucket --key copy.txt --copy-source api-bucket/dir/obj.txt
expect "copy-object result carries the source ETag" \
	"d['CopyObjectResult']['ETag'].strip('\"') == '$(python3 -c 'import hashlib,sys;print(hashlib.md5(open(sys.argv[1],"rb").read()).hexdigest())' "$work/obj.txt")'"
check "s3api get-object of the copy" s3api get-object --bucket api-bucket --key copy.txt "$work/copy.out"
expect "the copy kept content type and metadata" \
	"d['ContentType'] == 'text/plain; charset=utf-8' and d['Metadata'] == {'color': 'blue', 'shape': 'round'}"
check "the copy is byte-exact" cmp "$work/obj.txt" "$work/copy.out"
check_fails "s3api get-object of a missing key" NoSuchKey \
	s3api get-object --bucket api-bucket --key no/such/key "$work/missing.out"
check_fails "s3api head-object of a missing key" "404" \
	s3api head-object --bucket api-bucket --key no/such/key
check_fails "s3api delete-bucket of a non-empty bucket" BucketNotEmpty \
	s3api delete-bucket --bucket api-bucket
check "s3api delete-objects" s3api delete-objects --bucket api-bucket --delete \
	'{"Objects":[{"Key":"dir/a"},{"Key":"dir/obj.txt"},{"Key":"dir/sub/b"},{"Key":"dir/sub/c"},{"Key":"top"},{"Key":"copy.txt"},{"Key":"never-existed"}]}'
expect "delete-objects reports 7 deleted, no errors" "len(d['Deleted']) == 7 and not d.get('Errors')"
check "s3api list-objects-v2 after delete-objects" s3api list-objects-v2 --bucket api-bucket
expect "bucket is empty" "not d.get('Contents')"
check "s3api delete-bucket" s3api delete-bucket --bucket api-bucket
check_fails "s3api head-bucket of the deleted bucket" "404" s3api head-bucket --bucket api-bucket

# --- listings of keys that need encoding ----------------------------------------
# The CLI (botocore) lists with encoding-type=url and decodes the names: each
# must come back exactly as written.
enc_keys=("a b" "a+b" "100%" "100%25" "q?x=1&y" "hash#frag" "tilde~star*" "日本語/ファイル.txt" "日本語/絵文字 😀"
	"sp ace/in dir" "sp ace/z" $'ctl\x01char' $'tab\there')
enc_py='["a b", "a+b", "100%", "100%25", "q?x=1&y", "hash#frag", "tilde~star*", "日本語/ファイル.txt", "日本語/絵文字 😀", "sp ace/in dir", "sp ace/z", "ctl\x01char", "tab\there"]'
check "s3api create-bucket enc-bucket" s3api create-bucket --bucket enc-bucket
for k in "${enc_keys[@]}"; do
	check "s3api put-object ${k@Q}" s3api put-object --bucket enc-bucket --key "$k" --body "$work/obj.txt"
done
check "s3api list-objects-v2 of keys needing encoding" s3api list-objects-v2 --bucket enc-bucket
expect "list-objects-v2 returns every key exactly" "[o['Key'] for o in d['Contents']] == sorted($enc_py)"
check "s3api list-objects-v2 --prefix 'sp ace/' --delimiter ' ' --start-after 'sp ace/in dir'" \
	s3api list-objects-v2 --no-paginate --bucket enc-bucket --prefix "sp ace/" --delimiter " " --start-after "sp ace/in dir"
expect "Prefix, Delimiter, StartAfter and keys come back exactly" \
	"(d['Prefix'], d['Delimiter'], d['StartAfter']) == ('sp ace/', ' ', 'sp ace/in dir') and [o['Key'] for o in d['Contents']] == ['sp ace/z']"
check "s3api list-objects-v2 --delimiter /" s3api list-objects-v2 --bucket enc-bucket --delimiter /
expect "common prefixes come back exactly" "[p['Prefix'] for p in d['CommonPrefixes']] == ['sp ace/', '日本語/']"
check "s3api list-objects-v2 --page-size 2 (continuation tokens)" s3api list-objects-v2 --bucket enc-bucket --page-size 2
expect "the CLI's pages of 2 hold every key exactly" "[o['Key'] for o in d['Contents']] == sorted($enc_py)"
check "s3api list-objects (V1) --delimiter / --marker 'a+b'" \
	s3api list-objects --bucket enc-bucket --delimiter / --marker "a+b"
expect "V1 keys, common prefixes and Marker come back exactly" \
	"d['Marker'] == 'a+b' and [o['Key'] for o in d['Contents']] == [k for k in sorted($enc_py) if k > 'a+b' and '/' not in k] and [p['Prefix'] for p in d['CommonPrefixes']] == ['sp ace/', '日本語/']"
check "s3 ls s3://enc-bucket" s3 ls s3://enc-bucket
expect_grep "s3 ls shows PRE 日本語/" -F "PRE 日本語/"
expect_grep "s3 ls shows PRE sp ace/" -F "PRE sp ace/"
expect_grep "s3 ls shows q?x=1&y" -F " q?x=1&y"
check "s3 ls s3://enc-bucket/日本語/" s3 ls "s3://enc-bucket/日本語/"
expect_grep "s3 ls of a UTF-8 prefix shows 絵文字 😀" -F " 絵文字 😀"
check "s3 ls --recursive s3://enc-bucket" s3 ls --recursive s3://enc-bucket
expect_lines "s3 ls --recursive lists every key once" ${#enc_keys[@]}
expect_grep "s3 ls --recursive shows sp ace/in dir" -F " sp ace/in dir"
expect_grep "s3 ls --recursive shows 100%25" -F " 100%25"
enc_deleted=0
for k in "${enc_keys[@]}"; do
	s3api delete-object --bucket enc-bucket --key "$k" >/dev/null 2>&1 && enc_deleted=$((enc_deleted + 1))
done
check "every key needing encoding deleted" test "$enc_deleted" -eq ${#enc_keys[@]}
check "s3api delete-bucket enc-bucket" s3api delete-bucket --bucket enc-bucket

# --- IAM on the same endpoint (aws iam signs for service iam) ---------------
iamc() { aws --endpoint-url "$endpoint" iam "$@"; }
printf '%s' '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::cli-bucket/*"}]}' >"$work/policy.json"
check "iam create-user" iamc create-user --user-name cli-user --path /cli/
expect "create-user returns the user" "d['User']['UserName'] == 'cli-user' and d['User']['Arn'].endswith(':user/cli/cli-user')"
check_fails "iam create-user again" EntityAlreadyExists iamc create-user --user-name cli-user
check "iam create-access-key" iamc create-access-key --user-name cli-user
expect "the key has a 40-character secret" "len(d['AccessKey']['SecretAccessKey']) == 40 and d['AccessKey']['Status'] == 'Active'"
cli_key=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['AccessKey']['AccessKeyId'])" "$out")
check "iam put-user-policy from a file" iamc put-user-policy --user-name cli-user --policy-name read --policy-document "file://$work/policy.json"
check "iam get-user-policy" iamc get-user-policy --user-name cli-user --policy-name read
expect "the CLI decodes the URL-encoded document back to the JSON put" "d['PolicyDocument'] == json.load(open('$work/policy.json'))"
check_fails "iam put-user-policy of a malformed document" MalformedPolicyDocument \
	iamc put-user-policy --user-name cli-user --policy-name bad --policy-document '{"Statement":[{"Effect":"Perhaps"}]}'
check "iam list-users" iamc list-users
expect "list-users names cli-user" "[u['UserName'] for u in d['Users']] == ['cli-user']"
check_fails "iam delete-user while it has a key and a policy" DeleteConflict iamc delete-user --user-name cli-user
check "iam delete-access-key" iamc delete-access-key --user-name cli-user --access-key-id "$cli_key"
check "iam delete-user-policy" iamc delete-user-policy --user-name cli-user --policy-name read
check "iam delete-user" iamc delete-user --user-name cli-user
check_fails "iam get-user of a deleted user" NoSuchEntity iamc get-user --user-name cli-user
check_fails "iam with a wrong secret key" SignatureDoesNotMatch \
	env AWS_SECRET_ACCESS_KEY=wrong-secret-key-000 aws --endpoint-url "$endpoint" iam list-users

# --- STS: aws sts assume-role, then aws s3 with the session's environment ---
stsc() { aws --endpoint-url "$endpoint" sts "$@"; }
check "s3 mb s3://sts-bucket" s3 mb s3://sts-bucket
printf 'sts data' >"$work/sts.txt"
check "s3 cp into sts-bucket" s3 cp "$work/sts.txt" s3://sts-bucket/obj
check "sts get-caller-identity (root)" stsc get-caller-identity
acct=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['Account'])" "$out")
printf '%s' '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::'"$acct"':root"},"Action":"sts:AssumeRole"}]}' >"$work/trust.json"
printf '%s' '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:ListBucket","s3:GetObject"],"Resource":["arn:aws:s3:::sts-bucket","arn:aws:s3:::sts-bucket/*"]}]}' >"$work/role-policy.json"
check "iam create-role" iamc create-role --role-name cli-role --assume-role-policy-document "file://$work/trust.json"
check "iam put-role-policy" iamc put-role-policy --role-name cli-role --policy-name read --policy-document "file://$work/role-policy.json"
check "sts assume-role" stsc assume-role --role-arn "arn:aws:iam::$acct:role/cli-role" --role-session-name cli --duration-seconds 900
expect "assume-role returns temporary credentials" \
	"d['Credentials']['AccessKeyId'].startswith('ASIA') and d['AssumedRoleUser']['Arn'].endswith(':assumed-role/cli-role/cli')"
python3 -c "import json,sys
c = json.load(open(sys.argv[1]))['Credentials']
print('AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_SESSION_TOKEN=%s' % (c['AccessKeyId'], c['SecretAccessKey'], c['SessionToken']))" "$out" >"$work/session.env"
# as_role CMD...: CMD with the session's credentials in its environment.
as_role() { env $(cat "$work/session.env") "$@"; }
check "s3 ls s3://sts-bucket with the session's credentials" as_role aws --endpoint-url "$endpoint" s3 ls s3://sts-bucket
cp "$out" "$work/sts.ls"
check "the session's listing names obj" grep -q ' obj$' "$work/sts.ls"
check "s3 cp down with the session's credentials" as_role aws --endpoint-url "$endpoint" s3 cp s3://sts-bucket/obj "$work/sts.down"
check "the session read the bytes" cmp "$work/sts.txt" "$work/sts.down"
check_fails "the session may not write" AccessDenied as_role aws --endpoint-url "$endpoint" s3 cp "$work/sts.txt" s3://sts-bucket/new
check_fails "the session may not list the buckets" AccessDenied as_role aws --endpoint-url "$endpoint" s3 ls
check "sts get-caller-identity with the session's credentials" as_role aws --endpoint-url "$endpoint" sts get-caller-identity
expect "the caller is the role session" "d['Arn'] == 'arn:aws:sts::$acct:assumed-role/cli-role/cli'"
check_fails "sts assume-role with a space in the session name" ValidationError \
	stsc assume-role --role-arn "arn:aws:iam::$acct:role/cli-role" --role-session-name 'c l' 
check "iam delete-role-policy" iamc delete-role-policy --role-name cli-role --policy-name read
check "iam delete-role" iamc delete-role --role-name cli-role
check_fails "the session of a deleted role is denied" AccessDenied as_role aws --endpoint-url "$endpoint" s3 ls s3://sts-bucket
check "s3 rm s3://sts-bucket/obj" s3 rm s3://sts-bucket/obj
check "s3 rb s3://sts-bucket" s3 rb s3://sts-bucket

check_fails "request with a wrong secret key" SignatureDoesNotMatch \
	env AWS_SECRET_ACCESS_KEY=wrong-secret-key-000 aws --endpoint-url "$endpoint" s3api list-buckets

echo "$pass passed, $fail failed"
((fail == 0))
