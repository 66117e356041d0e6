#!/usr/bin/env bash
# Bucket replication's configuration with the AWS CLI: put-, get- and
# delete-bucket-replication on a server given a replication target
# (--replication-target, its keys in JOG_REPLICATION_DR_*), S3's refusals
# (an unversioned bucket, a destination no target serves, a storage class
# JOG does not have), versioning that cannot be suspended under a
# configuration, and the target's secret key in no line of the server's
# output. The target (port 9) never answers: delivery is checked by
# boto3_replication_test.sh and mc_replication_test.sh.
#
# Needs: go, aws, python3, curl, cmp. The user's AWS configuration is never
# read or written. Prints "N passed, M failed" and exits non-zero when any
# check failed.
name=awscli-replication
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools aws

target_secret=dr-target-secret-$RANDOM$RANDOM
export JOG_REPLICATION_DR_ACCESS_KEY=DRTARGETKEY
export JOG_REPLICATION_DR_SECRET_KEY=$target_secret
start_jog src -- --replication-target dr=http://127.0.0.1:9 --log-level debug
unset JOG_REPLICATION_DR_ACCESS_KEY JOG_REPLICATION_DR_SECRET_KEY
endpoint=$jog_endpoint

aws_cli_env
s3api() { aws --endpoint-url "$endpoint" s3api "$@"; }

bucket=cli-repl
check "create-bucket" s3api create-bucket --bucket "$bucket"

cat >"$tmp/repl.json" <<'JSON'
{
  "Role": "arn:aws:iam::123456789012:role/replication",
  "Rules": [
    {"ID": "logs", "Priority": 2, "Status": "Enabled",
     "Filter": {"Prefix": "logs/"},
     "DeleteMarkerReplication": {"Status": "Enabled"},
     "Destination": {"Bucket": "arn:aws:s3:::backup", "StorageClass": "STANDARD"}},
    {"ID": "tagged", "Priority": 1, "Status": "Enabled",
     "Filter": {"And": {"Prefix": "img/", "Tags": [{"Key": "dr", "Value": "yes"}]}},
     "DeleteMarkerReplication": {"Status": "Disabled"},
     "Destination": {"Bucket": "arn:jog:replication::dr:photos"}}
  ]
}
JSON
sed 's/"STANDARD"/"GLACIER"/' "$tmp/repl.json" >"$tmp/glacier.json"
sed 's/arn:aws:s3:::backup/arn:jog:replication::nope:backup/' "$tmp/repl.json" >"$tmp/nope.json"
put_repl() { s3api put-bucket-replication --bucket "$bucket" --replication-configuration "file://$1"; }

check_fails "put-bucket-replication on an unversioned bucket" "Versioning must be 'Enabled'" put_repl "$tmp/repl.json"
check_fails "get-bucket-replication before any" ReplicationConfigurationNotFoundError \
	s3api get-bucket-replication --bucket "$bucket"

check "put-bucket-versioning Enabled" s3api put-bucket-versioning --bucket "$bucket" --versioning-configuration Status=Enabled
check "put-bucket-replication" put_repl "$tmp/repl.json"
check "get-bucket-replication" s3api get-bucket-replication --bucket "$bucket"
expect "the configuration read back is the one put" "
[(r['ID'], r['Priority'], r['Status'], r['DeleteMarkerReplication']['Status'], r['Destination']['Bucket']) for r in d['ReplicationConfiguration']['Rules']] == [
 ('logs', 2, 'Enabled', 'Enabled', 'arn:aws:s3:::backup'),
 ('tagged', 1, 'Enabled', 'Disabled', 'arn:jog:replication::dr:photos')]
and d['ReplicationConfiguration']['Rules'][0]['Filter'] == {'Prefix': 'logs/'}
and d['ReplicationConfiguration']['Rules'][1]['Filter']['And']['Tags'] == [{'Key': 'dr', 'Value': 'yes'}]
and d['ReplicationConfiguration']['Role'] == 'arn:aws:iam::123456789012:role/replication'"

check_fails "put-bucket-replication StorageClass GLACIER" NotImplemented put_repl "$tmp/glacier.json"
check_fails "put-bucket-replication to a target the server lacks" "dr (http://127.0.0.1:9)" put_repl "$tmp/nope.json"
check "get-bucket-replication after the refusals" s3api get-bucket-replication --bucket "$bucket"
expect "the refusals changed nothing" "[r['ID'] for r in d['ReplicationConfiguration']['Rules']] == ['logs', 'tagged']"

check_fails "put-bucket-versioning Suspended under a configuration" InvalidBucketState \
	s3api put-bucket-versioning --bucket "$bucket" --versioning-configuration Status=Suspended

check "delete-bucket-replication" s3api delete-bucket-replication --bucket "$bucket"
check_fails "get-bucket-replication after delete" ReplicationConfigurationNotFoundError \
	s3api get-bucket-replication --bucket "$bucket"
check "put-bucket-versioning Suspended without one" s3api put-bucket-versioning --bucket "$bucket" --versioning-configuration Status=Suspended

if grep -q -- "$target_secret" "$tmp/src.out" "$tmp/src.log"; then
	bad "the target's secret key is in the server's output"
else
	ok "the target's secret key is in no line of the server's output"
fi
if grep -q "bucket replication.*targets=.*dr" "$tmp/src.log"; then ok "the server logs its targets"; else bad "the server logs its targets"; fi

finish
