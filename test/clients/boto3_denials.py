"""boto3 reads JOG's AccessDenied messages, run by TestDenialMessagesBoto3.

The server (test/integration/denial_test.go, startDenials) has the bucket
"denials" with hidden/x, locked/x and open/x; erin has no policy, frank a
Deny on locked/* in his identity policy, gina a Deny on hidden/* in the
bucket policy. An authenticated caller is told what was refused and why,
in AWS's words; an anonymous one only "Access Denied".

Usage: boto3_denials.py ENDPOINT, with JOG_REGION and JOG_<USER>_KEY,
JOG_<USER>_SECRET, JOG_<USER>_ARN for erin, frank and gina in the
environment. Prints "N passed, M failed"; exits 1 when any failed.
"""

import os
import sys

import boto3
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint = sys.argv[1]
config = dict(s3={"addressing_style": "path"}, retries={"max_attempts": 1})


def client(user):
    if user is None:
        return boto3.client("s3", endpoint_url=endpoint, region_name=os.environ["JOG_REGION"],
                            config=Config(signature_version=UNSIGNED, **config))
    up = user.upper()
    return boto3.client("s3", endpoint_url=endpoint, region_name=os.environ["JOG_REGION"], config=Config(**config),
                        aws_access_key_id=os.environ[f"JOG_{up}_KEY"], aws_secret_access_key=os.environ[f"JOG_{up}_SECRET"])


def error(call, **kw):
    try:
        call(**kw)
    except ClientError as e:
        return e.response["Error"].get("Code"), e.response["Error"].get("Message")
    return None, "allowed"


def refused(user, action, key, why):
    arn = os.environ[f"JOG_{user.upper()}_ARN"]
    return ("AccessDenied", f'User: {arn} is not authorized to perform: {action} on resource: '
            f'"arn:aws:s3:::denials/{key}" {why}')


cases = [
    ("an IAM user without an allow", error(client("erin").get_object, Bucket="denials", Key="open/x"),
     refused("erin", "s3:GetObject", "open/x", "because no identity-based policy allows the s3:GetObject action")),
    ("a Deny in the bucket policy", error(client("gina").get_object, Bucket="denials", Key="hidden/x"),
     refused("gina", "s3:GetObject", "hidden/x", "with an explicit deny in a resource-based policy")),
    ("a Deny in an identity policy", error(client("frank").get_object, Bucket="denials", Key="locked/x"),
     refused("frank", "s3:GetObject", "locked/x", "with an explicit deny in an identity-based policy")),
    ("anonymous", error(client(None).get_object, Bucket="denials", Key="open/x"), ("AccessDenied", "Access Denied")),
]
failed = 0
for name, got, want in cases:
    if got != want:
        failed += 1
        print(f"FAIL {name}: got {got!r}\n     want {want!r}")
    else:
        print(f"ok   {name}")
print(f"{len(cases) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
