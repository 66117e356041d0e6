#!/usr/bin/env bash
# Encryption at rest with the AWS CLI, over HTTPS: `aws s3 cp` up and down
# with --sse AES256, --sse aws:kms --sse-kms-key-id, and --sse-c AES256
# --sse-c-key fileb://… (small files in one PUT, 20 MiB in multipart), the
# SSE-C refusals (no key, another key), `aws s3api head-object` with the
# customer key, copies S3 → S3 that re-encrypt (SSE-C → SSE-S3 in one
# CopyObject, SSE-C → SSE-KMS in UploadPartCopy), and a bucket's default
# encryption (put-/get-/delete-bucket-encryption) applied to a plain upload.
# Every download is compared with the file uploaded.
#
# Needs: go, aws, python3, curl, cmp. The user's AWS configuration is never
# read or written. Prints "N passed, M failed" and exits non-zero when any
# check failed.
name=awscli-sse
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools aws

start_jog server --tls
endpoint=$jog_endpoint
kms_key=cli-sse-key
kms_create server "$kms_key"

aws_cli_env
export AWS_CA_BUNDLE=$tmp/tls/cert.pem

s3() { aws --endpoint-url "$endpoint" s3 "$@"; }
s3api() { aws --endpoint-url "$endpoint" s3api "$@"; }

bucket=cli-sse
check "create-bucket" s3api create-bucket --bucket "$bucket"

head -c 1000 /dev/urandom >"$tmp/small"
head -c $((20 << 20)) /dev/urandom >"$tmp/big"
head -c 32 /dev/urandom >"$tmp/key.bin"
head -c 32 /dev/urandom >"$tmp/other.bin"
ssec=(--sse-c AES256 --sse-c-key "fileb://$tmp/key.bin")

# same DESC FILE: the last download ($tmp/down) equals FILE.
same() {
	if ((last_ok)) && cmp -s "$2" "$tmp/down"; then ok "$1"; else bad "$1"; fi
	rm -f "$tmp/down"
}

for f in small big; do
	check "cp $f --sse AES256" s3 cp "$tmp/$f" "s3://$bucket/s3/$f" --sse AES256
	check "head-object s3/$f" s3api head-object --bucket "$bucket" --key "s3/$f"
	expect "s3/$f is SSE-S3" "d['ServerSideEncryption'] == 'AES256' and d['ContentLength'] == $(stat -c %s "$tmp/$f")"
	check "cp s3/$f down" s3 cp "s3://$bucket/s3/$f" "$tmp/down"
	same "s3/$f read back" "$tmp/$f"

	check "cp $f --sse aws:kms --sse-kms-key-id" s3 cp "$tmp/$f" "s3://$bucket/kms/$f" --sse aws:kms --sse-kms-key-id "$kms_key"
	check "head-object kms/$f" s3api head-object --bucket "$bucket" --key "kms/$f"
	expect "kms/$f is SSE-KMS under $kms_key" \
		"d['ServerSideEncryption'] == 'aws:kms' and d['SSEKMSKeyId'].endswith(':key/$kms_key')"
	check "cp kms/$f down" s3 cp "s3://$bucket/kms/$f" "$tmp/down"
	same "kms/$f read back" "$tmp/$f"

	check "cp $f --sse-c AES256 --sse-c-key fileb://" s3 cp "$tmp/$f" "s3://$bucket/c/$f" "${ssec[@]}"
	check "cp c/$f down with the key" s3 cp "s3://$bucket/c/$f" "$tmp/down" "${ssec[@]}"
	same "c/$f read back" "$tmp/$f"
done

check_fails "cp of an SSE-C object without the key: 400" "(400)" s3 cp "s3://$bucket/c/small" "$tmp/down"
check_fails "cp of an SSE-C object with another key: 403" "(403)" \
	s3 cp "s3://$bucket/c/small" "$tmp/down" --sse-c AES256 --sse-c-key "fileb://$tmp/other.bin"
check_fails "get-object of an SSE-C object without the key: InvalidRequest" InvalidRequest \
	s3api get-object --bucket "$bucket" --key c/small "$tmp/down"
check "head-object with --sse-customer-key" s3api head-object --bucket "$bucket" --key c/big \
	--sse-customer-algorithm AES256 --sse-customer-key "fileb://$tmp/key.bin"
key_md5=$(python3 -c 'import base64,hashlib,sys;print(base64.b64encode(hashlib.md5(open(sys.argv[1],"rb").read()).digest()).decode())' "$tmp/key.bin")
expect "head-object names the customer key's MD5" \
	"d['SSECustomerAlgorithm'] == 'AES256' and d['SSECustomerKeyMD5'] == '$key_md5' and d['ContentLength'] == $((20 << 20))"

# S3 → S3: one CopyObject for the small file, UploadPartCopy for 20 MiB.
check "cp s3://c/small → SSE-S3 (copy source SSE-C)" s3 cp "s3://$bucket/c/small" "s3://$bucket/c2s3/small" \
	--sse-c-copy-source AES256 --sse-c-copy-source-key "fileb://$tmp/key.bin" --sse AES256
check "head-object c2s3/small" s3api head-object --bucket "$bucket" --key c2s3/small
expect "the copy is SSE-S3" "d['ServerSideEncryption'] == 'AES256'"
check "cp c2s3/small down without a key" s3 cp "s3://$bucket/c2s3/small" "$tmp/down"
same "c2s3/small read back" "$tmp/small"
check "cp s3://c/big → SSE-KMS (multipart copy, source SSE-C)" s3 cp "s3://$bucket/c/big" "s3://$bucket/c2kms/big" \
	--sse-c-copy-source AES256 --sse-c-copy-source-key "fileb://$tmp/key.bin" --sse aws:kms --sse-kms-key-id "$kms_key"
check "head-object c2kms/big" s3api head-object --bucket "$bucket" --key c2kms/big
expect "the copy is SSE-KMS" "d['ServerSideEncryption'] == 'aws:kms' and d['ContentLength'] == $((20 << 20))"
check "cp c2kms/big down" s3 cp "s3://$bucket/c2kms/big" "$tmp/down"
same "c2kms/big read back" "$tmp/big"

# The bucket's default encryption.
check_fails "get-bucket-encryption before any" ServerSideEncryptionConfigurationNotFoundError \
	s3api get-bucket-encryption --bucket "$bucket"
check "put-bucket-encryption aws:kms" s3api put-bucket-encryption --bucket "$bucket" \
	--server-side-encryption-configuration \
	"{\"Rules\":[{\"ApplyServerSideEncryptionByDefault\":{\"SSEAlgorithm\":\"aws:kms\",\"KMSMasterKeyID\":\"$kms_key\"}}]}"
check "get-bucket-encryption" s3api get-bucket-encryption --bucket "$bucket"
expect "the default is SSE-KMS under $kms_key" \
	"d['ServerSideEncryptionConfiguration']['Rules'][0]['ApplyServerSideEncryptionByDefault']['SSEAlgorithm'] == 'aws:kms'"
check "cp small with no --sse" s3 cp "$tmp/small" "s3://$bucket/default/small"
check "head-object default/small" s3api head-object --bucket "$bucket" --key default/small
expect "the bucket's default applied" "d['ServerSideEncryption'] == 'aws:kms' and d['SSEKMSKeyId'].endswith(':key/$kms_key')"
check "cp default/small down" s3 cp "s3://$bucket/default/small" "$tmp/down"
same "default/small read back" "$tmp/small"
check "delete-bucket-encryption" s3api delete-bucket-encryption --bucket "$bucket"
check "cp small with no --sse after the delete" s3 cp "$tmp/small" "s3://$bucket/plain/small"
check "head-object plain/small" s3api head-object --bucket "$bucket" --key plain/small
expect "no default any more" "'ServerSideEncryption' not in d"

check "rb --force" s3 rb "s3://$bucket" --force
finish
