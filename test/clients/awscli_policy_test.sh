#!/usr/bin/env bash
# Bucket policies with the AWS CLI: s3api put-bucket-policy,
# get-bucket-policy, get-bucket-policy-status and delete-bucket-policy, and
# an anonymous curl GET that the policy allows (and one it does not); then
# an IAM user's own calls under AWS's "rotate your own access keys" policy
# with `aws iam`.
#
# Needs: go, aws, python3, curl. The user's AWS configuration is never read
# or written. Prints "N passed, M failed" and exits non-zero when any check
# failed.
name=awscli-policy
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools aws

start_jog server
endpoint=$jog_endpoint

aws_cli_env

s3api() { aws --endpoint-url "$endpoint" s3api "$@"; }
iam() { aws --endpoint-url "$endpoint" iam "$@"; }
# status URL: the HTTP status of an anonymous GET.
status() { curl -s -o "$tmp/body" -w '%{http_code}' "$1"; }
# expect_status DESC WANT URL: an anonymous GET of URL answers WANT.
expect_status() {
	local got
	got=$(status "$3")
	if [[ $got == "$2" ]]; then ok "$1"; else bad "$1 (status $got, want $2)"; fi
}

bucket=cli-policy
check "create-bucket" s3api create-bucket --bucket "$bucket"
echo "hello, anyone" >"$tmp/hello.txt"
check "put-object public/hello.txt" s3api put-object --bucket "$bucket" --key public/hello.txt --body "$tmp/hello.txt"
check "put-object private.txt" s3api put-object --bucket "$bucket" --key private.txt --body "$tmp/hello.txt"

expect_status "anonymous GET before any policy: 403" 403 "$endpoint/$bucket/public/hello.txt"
check_fails "get-bucket-policy before any: NoSuchBucketPolicy" NoSuchBucketPolicy s3api get-bucket-policy --bucket "$bucket"

cat >"$tmp/policy.json" <<JSON
{"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow","Principal":"*",
 "Action":"s3:GetObject","Resource":"arn:aws:s3:::$bucket/public/*"}]}
JSON
check "put-bucket-policy" s3api put-bucket-policy --bucket "$bucket" --policy "file://$tmp/policy.json"
check "get-bucket-policy" s3api get-bucket-policy --bucket "$bucket"
expect "get-bucket-policy returns the document" \
	"json.loads(d['Policy']) == json.load(open('$tmp/policy.json'))"
check "get-bucket-policy-status" s3api get-bucket-policy-status --bucket "$bucket"
expect "the policy makes the bucket public" "d['PolicyStatus']['IsPublic'] is True"

expect_status "anonymous curl GET the policy allows: 200" 200 "$endpoint/$bucket/public/hello.txt"
if cmp -s "$tmp/body" "$tmp/hello.txt"; then ok "anonymous GET body"; else bad "anonymous GET body"; fi
expect_status "anonymous curl GET outside the policy: 403" 403 "$endpoint/$bucket/private.txt"
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary x "$endpoint/$bucket/public/new.txt")
if [[ $code == 403 ]]; then ok "anonymous curl PUT: 403"; else bad "anonymous curl PUT: $code, want 403"; fi
check_fails "anonymous PUT stored nothing" "Not Found\|404\|NoSuchKey" s3api head-object --bucket "$bucket" --key public/new.txt

echo '{"Statement":[{"Effect":"Maybe"}]}' >"$tmp/bad.json"
check_fails "put-bucket-policy malformed: MalformedPolicy" MalformedPolicy \
	s3api put-bucket-policy --bucket "$bucket" --policy "file://$tmp/bad.json"

check "delete-bucket-policy" s3api delete-bucket-policy --bucket "$bucket"
check_fails "get-bucket-policy after delete: NoSuchBucketPolicy" NoSuchBucketPolicy s3api get-bucket-policy --bucket "$bucket"
expect_status "anonymous GET after delete-bucket-policy: 403" 403 "$endpoint/$bucket/public/hello.txt"

# An IAM user with AWS's "rotate your own access keys" policy.
cat >"$tmp/keys.json" <<'JSON'
{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
 "Action":["iam:DeleteAccessKey","iam:GetAccessKeyLastUsed","iam:UpdateAccessKey","iam:CreateAccessKey","iam:ListAccessKeys"],
 "Resource":"arn:aws:iam::*:user/${aws:username}"}]}
JSON
check "iam create-user" iam create-user --user-name rotator
check "iam put-user-policy" iam put-user-policy --user-name rotator --policy-name keys --policy-document "file://$tmp/keys.json"
check "iam create-access-key" iam create-access-key --user-name rotator
read -r user_key user_secret < <(python3 -c "import json,sys
k = json.load(open(sys.argv[1]))['AccessKey']; print(k['AccessKeyId'], k['SecretAccessKey'])" "$out")
as_user() { AWS_ACCESS_KEY_ID=$user_key AWS_SECRET_ACCESS_KEY=$user_secret aws --endpoint-url "$endpoint" iam "$@"; }
check "the user creates a key for itself" as_user create-access-key
expect "the new key is the user's" "d['AccessKey']['UserName'] == 'rotator'"
check "the user lists its keys" as_user list-access-keys
expect "two keys" "len(d['AccessKeyMetadata']) == 2"
check_fails "the user may not create users" AccessDenied as_user create-user --user-name intruder
check_fails "intruder was not created" NoSuchEntity iam get-user --user-name intruder

finish
