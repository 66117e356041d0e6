#!/usr/bin/env bash
# Bucket replication with MinIO's mc against JOG, replicating to a second
# JOG (start_replicated_pair). mc's replicate commands mix the S3 API with
# MinIO's own (docs/COMPATIBILITY.md):
#   add    registers a remote target through MinIO's admin API first
#          (PUT /minio/admin/v3/set-remote-target): refused, nothing stored;
#   ls     reads the rules (S3), then the targets (admin API): fails;
#   export reads the rules over S3: works, and is read back here;
#   import puts them back over S3 (minio-go's XML, with its empty
#          elements): works, read back with the AWS CLI;
#   rm     deletes them over S3, then reports S3's 204 as an error
#          (minio-go expects MinIO's 200): the rules are gone all the same.
# An object copied with mc under the imported rules arrives on the
# destination byte-exact, read there with mc.
#
# Needs: go, mc (MinIO's client), aws, python3, curl, cmp. The user's mc
# and AWS configurations are never read. Prints "N passed, M failed" and
# exits non-zero when any check failed.
name=mc-replication
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_tools mc aws

start_replicated_pair
aws_cli_env
export MC_CONFIG_DIR=$tmp/mc
check "mc alias set src" mc alias set src "$src_endpoint" "$access_key" "$secret_key" --api s3v4 --path on
check "mc alias set dst" mc alias set dst "$dst_endpoint" "$access_key" "$secret_key" --api s3v4 --path on
for b in dst/copy src/orig; do
	check "mc mb $b" mc mb "$b"
	check "mc version enable $b" mc version enable "$b"
done

check_fails "mc replicate add: MinIO's admin API, which JOG does not serve" "unable to configure remote target" \
	mc replicate add src/orig --remote-bucket "http://$access_key:$secret_key@${dst_endpoint#http://}/copy" --priority 1
check_fails "nothing was stored" ReplicationConfigurationNotFoundError \
	aws --endpoint-url "$src_endpoint" s3api get-bucket-replication --bucket orig

cat >"$tmp/repl.json" <<'JSON'
{"Role": "arn:aws:iam::123456789012:role/replication",
 "Rules": [{"ID": "docs", "Priority": 1, "Status": "Enabled", "Filter": {"Prefix": "docs/"},
            "DeleteMarkerReplication": {"Status": "Enabled"}, "Destination": {"Bucket": "arn:aws:s3:::copy"}}]}
JSON
want="[(r['ID'], r['Priority'], r['Status'], r['Filter'].get('Prefix'), r['DeleteMarkerReplication']['Status'], r['Destination']['Bucket']) for r in d['Rules']] == [
 ('docs', 1, 'Enabled', 'docs/', 'Enabled', 'arn:aws:s3:::copy')] and d['Role'] == 'arn:aws:iam::123456789012:role/replication'"
check "aws put-bucket-replication" aws --endpoint-url "$src_endpoint" s3api put-bucket-replication --bucket orig \
	--replication-configuration "file://$tmp/repl.json"
check "mc replicate export" mc replicate export src/orig
cp "$out" "$tmp/export.json"
expect "mc exports what the AWS CLI put" "$want"
check_fails "mc replicate ls: the rules, then MinIO's admin API" "Unable to fetch remote target" mc replicate ls src/orig

check "aws delete-bucket-replication" aws --endpoint-url "$src_endpoint" s3api delete-bucket-replication --bucket orig
check "mc replicate import of the export" mc replicate import src/orig <"$tmp/export.json"
check "aws get-bucket-replication" aws --endpoint-url "$src_endpoint" s3api get-bucket-replication --bucket orig
expect "the AWS CLI reads back what mc imported" "(lambda d: $want)(d['ReplicationConfiguration'])"

head -c 700000 /dev/urandom >"$tmp/a.bin"
check "mc cp docs/a.bin" mc cp "$tmp/a.bin" src/orig/docs/a.bin
eventually "docs/a.bin arrives on the destination" 60 mc cat dst/copy/docs/a.bin
check "mc cp docs/a.bin from the destination" mc cp dst/copy/docs/a.bin "$tmp/a.got"
check "its bytes are the ones mc copied" cmp "$tmp/a.bin" "$tmp/a.got"
check "aws head-object docs/a.bin on the source" aws --endpoint-url "$src_endpoint" s3api head-object --bucket orig --key docs/a.bin
expect "COMPLETED on the source" "d['ReplicationStatus'] == 'COMPLETED'"

check_fails "mc replicate rm --all: S3's 204, which minio-go takes for an error" "204 No Content" \
	mc replicate rm --all --force src/orig
check_fails "the rules are gone all the same" ReplicationConfigurationNotFoundError \
	aws --endpoint-url "$src_endpoint" s3api get-bucket-replication --bucket orig

finish
