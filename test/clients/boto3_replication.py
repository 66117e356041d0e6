#!/usr/bin/env python3
"""boto3's bucket replication calls, one per run, for
boto3_replication_test.sh (which keeps the checks' bookkeeping).

Usage: boto3_replication.py ENDPOINT OP BUCKET [ARG...]
  put FILE          put_bucket_replication with the JSON configuration in FILE
  get               get_bucket_replication; prints ReplicationConfiguration
  delete            delete_bucket_replication
  put-object KEY FILE
                    put_object of FILE's bytes with user metadata
                    {"by": "boto3"}; prints the version ID
  head KEY          head_object; prints ReplicationStatus (or "none"),
                    ETag and Metadata as JSON

Credentials and region come from JOG_ACCESS_KEY, JOG_SECRET_KEY and
JOG_REGION. A client error exits 1, printing its code on stderr.
"""

import json
import os
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def main(endpoint, op, bucket, *args):
    s3 = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=os.environ["JOG_ACCESS_KEY"],
        aws_secret_access_key=os.environ["JOG_SECRET_KEY"],
        region_name=os.environ["JOG_REGION"],
        config=Config(s3={"addressing_style": "path"}),
    )
    if op == "put":
        with open(args[0]) as f:
            s3.put_bucket_replication(Bucket=bucket, ReplicationConfiguration=json.load(f))
    elif op == "get":
        out = s3.get_bucket_replication(Bucket=bucket)
        print(json.dumps(out["ReplicationConfiguration"]))
    elif op == "delete":
        s3.delete_bucket_replication(Bucket=bucket)
    elif op == "put-object":
        with open(args[1], "rb") as f:
            out = s3.put_object(Bucket=bucket, Key=args[0], Body=f.read(), Metadata={"by": "boto3"})
        print(out["VersionId"])
    elif op == "head":
        out = s3.head_object(Bucket=bucket, Key=args[0])
        print(json.dumps({"ReplicationStatus": out.get("ReplicationStatus", "none"),
                          "ETag": out["ETag"], "Metadata": out["Metadata"]}))
    else:
        sys.exit(f"unknown op {op}")


if __name__ == "__main__":
    try:
        main(*sys.argv[1:])
    except ClientError as e:
        print(e.response["Error"]["Code"], e, file=sys.stderr)
        sys.exit(1)
