#!/usr/bin/env bash
# End-to-end check of JOG with boto3 (test/clients/boto3_test.py).
#
# Builds jog, starts it twice on free loopback ports - plain HTTP, and HTTPS
# with a self-signed certificate, where boto3 sends uploads as aws-chunked
# with a CRC32 trailer (STREAMING-UNSIGNED-PAYLOAD-TRAILER) - and runs the
# Python suite against both, ceph/s3-tests' encryption cases included
# (boto3_sse.py). Needs: go, python3 with boto3, curl, cmp.
# Prints "N passed, M failed" and exits non-zero when any check failed.
name=boto3
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

python3 -c 'import boto3' 2>/dev/null || { echo "boto3_test: python3 cannot import boto3 (pip install boto3)" >&2; exit 2; }

# The encryption checks (boto3_sse.py) send SSE-C keys over plain HTTP too:
# --allow-insecure-sse-c allows it on this loopback server alone. Their SSE-KMS
# keys live in each server's data dir.
start_jog http -- --allow-insecure-sse-c
http_endpoint=$jog_endpoint
start_jog https --tls
https_endpoint=$jog_endpoint
export JOG_KMS_KEY=parity-key-1 JOG_KMS_KEY2=parity-key-2
kms_create http "$JOG_KMS_KEY" "$JOG_KMS_KEY2"
kms_create https "$JOG_KMS_KEY" "$JOG_KMS_KEY2"

# An isolated configuration: never read the user's ~/.aws.
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 \
	AWS_REQUEST_CHECKSUM_CALCULATION AWS_RESPONSE_CHECKSUM_VALIDATION AWS_CA_BUNDLE
export AWS_CONFIG_FILE=$tmp/aws-config AWS_SHARED_CREDENTIALS_FILE=$tmp/aws-credentials AWS_EC2_METADATA_DISABLED=true
: >"$AWS_CONFIG_FILE"
: >"$AWS_SHARED_CREDENTIALS_FILE"

mkdir -p "$tmp/py"
JOG_ACCESS_KEY=$access_key JOG_SECRET_KEY=$secret_key JOG_REGION=$region JOG_TMP=$tmp/py \
	python3 "$(dirname "${BASH_SOURCE[0]}")/boto3_test.py" "$http_endpoint" "$https_endpoint"
