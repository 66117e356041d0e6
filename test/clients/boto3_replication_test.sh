#!/usr/bin/env bash
# Bucket replication's configuration set with boto3: put_bucket_replication
# on a server replicating to a second JOG (start_replicated_pair), the rules
# read back with the AWS CLI and with boto3, an object put with boto3
# arriving on the destination byte-exact (COMPLETED on the source, REPLICA
# on the destination), an object outside the rule's prefix owing nothing,
# and delete_bucket_replication seen by the AWS CLI.
#
# Needs: go, python3 with boto3, aws, curl, cmp. The user's AWS
# configuration is never read. Prints "N passed, M failed" and exits
# non-zero when any check failed.
name=boto3-replication
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools aws
python3 -c 'import boto3' 2>/dev/null || { echo "$name: python3 cannot import boto3 (pip install boto3)" >&2; exit 2; }

start_replicated_pair
aws_cli_env
boto() {
	JOG_ACCESS_KEY=$access_key JOG_SECRET_KEY=$secret_key JOG_REGION=$region \
		python3 "$root/test/clients/boto3_replication.py" "$@"
}
s3api() { aws --endpoint-url "$1" s3api "${@:2}"; }

for ep in "$dst_endpoint copy" "$src_endpoint orig"; do
	set -- $ep
	check "create-bucket $2" s3api "$1" create-bucket --bucket "$2"
	check "put-bucket-versioning $2 Enabled" s3api "$1" put-bucket-versioning --bucket "$2" --versioning-configuration Status=Enabled
done

cat >"$tmp/repl.json" <<'JSON'
{
  "Role": "arn:aws:iam::123456789012:role/replication",
  "Rules": [
    {"ID": "docs", "Priority": 1, "Status": "Enabled",
     "Filter": {"Prefix": "docs/"},
     "DeleteMarkerReplication": {"Status": "Enabled"},
     "Destination": {"Bucket": "arn:aws:s3:::copy"}}
  ]
}
JSON
want="[(r['ID'], r['Priority'], r['Status'], r['Filter'], r['DeleteMarkerReplication']['Status'], r['Destination']['Bucket']) for r in d['Rules']] == [
 ('docs', 1, 'Enabled', {'Prefix': 'docs/'}, 'Enabled', 'arn:aws:s3:::copy')] and d['Role'] == 'arn:aws:iam::123456789012:role/replication'"

check "boto3 put_bucket_replication" boto "$src_endpoint" put orig "$tmp/repl.json"
check "aws get-bucket-replication" s3api "$src_endpoint" get-bucket-replication --bucket orig
expect "the AWS CLI reads back what boto3 put" "(lambda d: $want)(d['ReplicationConfiguration'])"
check "boto3 get_bucket_replication" boto "$src_endpoint" get orig
expect "boto3 reads back what it put" "$want"

head -c 300000 /dev/urandom >"$tmp/a.bin"
check "boto3 put_object docs/a.bin" boto "$src_endpoint" put-object orig docs/a.bin "$tmp/a.bin"
check "boto3 put_object other/b.bin (outside the rule)" boto "$src_endpoint" put-object orig other/b.bin "$tmp/a.bin"
status_is() { boto "$1" head "$2" "$3" | grep -q "\"ReplicationStatus\": \"$4\""; }
eventually "docs/a.bin COMPLETED on the source" 60 status_is "$src_endpoint" orig docs/a.bin COMPLETED
check "boto3 head_object docs/a.bin on the destination" boto "$dst_endpoint" head copy docs/a.bin
expect "REPLICA there, with its metadata" "d['ReplicationStatus'] == 'REPLICA' and d['Metadata'] == {'by': 'boto3'}"
check "aws get-object docs/a.bin from the destination" s3api "$dst_endpoint" get-object --bucket copy --key docs/a.bin "$tmp/a.got"
check "its bytes are the ones boto3 put" cmp "$tmp/a.bin" "$tmp/a.got"
check "boto3 head_object other/b.bin on the source" boto "$src_endpoint" head orig other/b.bin
expect "other/b.bin owes nothing (no replication status)" "d['ReplicationStatus'] == 'none'"

check "boto3 delete_bucket_replication" boto "$src_endpoint" delete orig
check_fails "aws get-bucket-replication after boto3's delete" ReplicationConfigurationNotFoundError \
	s3api "$src_endpoint" get-bucket-replication --bucket orig

finish
