"""boto3 checks of bucket policies and IAM users' own calls, run by boto3_test.py.

put_bucket_policy / get_bucket_policy / get_bucket_policy_status /
delete_bucket_policy as boto3 sends them, an anonymous (unsigned) GET the
policy allows, and an IAM user calling the IAM API under AWS's
"rotate your own access keys" policy and an S3 request bounded by a
permissions boundary.
"""

import json

import boto3
from botocore import UNSIGNED
from botocore.config import Config

ROTATE_OWN_KEYS = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow",
    "Action": ["iam:DeleteAccessKey", "iam:GetAccessKeyLastUsed", "iam:UpdateAccessKey", "iam:CreateAccessKey", "iam:ListAccessKeys"],
    "Resource": "arn:aws:iam::*:user/${aws:username}"}]}


def checks(s3, common, bucket, label, t, eq, client_error_code):
    path = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1})
    anon = boto3.client("s3", config=Config(signature_version=UNSIGNED, s3={"addressing_style": "path"},
                                            retries={"max_attempts": 1}), **common)
    policy = {"Version": "2012-10-17", "Statement": [{
        "Sid": "PublicRead", "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/public/*"}]}

    def bucket_policy():
        s3.put_object(Bucket=bucket, Key="public/hello.txt", Body=b"hello, anyone")
        s3.put_object(Bucket=bucket, Key="private.txt", Body=b"not for you")
        eq(client_error_code(anon.get_object, Bucket=bucket, Key="public/hello.txt"), "AccessDenied", "anonymous before the policy")
        eq(client_error_code(s3.get_bucket_policy, Bucket=bucket), "NoSuchBucketPolicy", "get_bucket_policy before")
        s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))
        eq(json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"]), policy, "get_bucket_policy round trip")
        eq(s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]["IsPublic"], True, "get_bucket_policy_status")
        eq(anon.get_object(Bucket=bucket, Key="public/hello.txt")["Body"].read(), b"hello, anyone", "anonymous GET allowed")
        eq(client_error_code(anon.get_object, Bucket=bucket, Key="private.txt"), "AccessDenied", "anonymous GET outside the policy")
        eq(client_error_code(anon.put_object, Bucket=bucket, Key="public/x", Body=b"x"), "AccessDenied", "anonymous PUT")
        eq(client_error_code(s3.put_bucket_policy, Bucket=bucket, Policy='{"Statement":[{"Effect":"Maybe"}]}'),
           "MalformedPolicy", "malformed policy")
        s3.delete_bucket_policy(Bucket=bucket)
        eq(client_error_code(s3.get_bucket_policy, Bucket=bucket), "NoSuchBucketPolicy", "get_bucket_policy after delete")
        eq(client_error_code(anon.get_object, Bucket=bucket, Key="public/hello.txt"), "AccessDenied", "anonymous after delete")
        s3.delete_object(Bucket=bucket, Key="public/hello.txt")
        s3.delete_object(Bucket=bucket, Key="private.txt")

    t("put/get/delete_bucket_policy, get_bucket_policy_status, an anonymous GET", bucket_policy)

    iam = boto3.client("iam", **common)
    user = f"boto3-{label}-self"

    def user_calls():
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="keys", PolicyDocument=json.dumps(ROTATE_OWN_KEYS))
        iam.put_user_policy(UserName=user, PolicyName="s3", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        k = iam.create_access_key(UserName=user)["AccessKey"]
        creds = dict(common, aws_access_key_id=k["AccessKeyId"], aws_secret_access_key=k["SecretAccessKey"])
        mine = boto3.client("iam", **creds)
        k2 = mine.create_access_key()["AccessKey"]
        eq(k2["UserName"], user, "create_access_key for itself")
        eq(len(mine.list_access_keys()["AccessKeyMetadata"]), 2, "list_access_keys of itself")
        mine.delete_access_key(AccessKeyId=k2["AccessKeyId"])
        eq(client_error_code(mine.create_user, UserName=user + "-x"), "AccessDenied", "create_user refused")
        eq(client_error_code(mine.list_access_keys, UserName="nobody-else"), "AccessDenied", "another user's keys refused")

        # A boundary allowing GetObject only caps the user's s3:*.
        arn = iam.create_policy(PolicyName=user + "-get", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}))["Policy"]["Arn"]
        s3u = boto3.client("s3", config=path, **creds)
        s3u.put_object(Bucket=bucket, Key="bounded", Body=b"before")
        iam.put_user_permissions_boundary(UserName=user, PermissionsBoundary=arn)
        eq(iam.get_user(UserName=user)["User"]["PermissionsBoundary"],
           {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": arn}, "get_user shows the boundary")
        eq(s3u.get_object(Bucket=bucket, Key="bounded")["Body"].read(), b"before", "GetObject within the boundary")
        eq(client_error_code(s3u.put_object, Bucket=bucket, Key="bounded", Body=b"after"), "AccessDenied",
           "PutObject outside the boundary")
        eq(client_error_code(iam.delete_policy, PolicyArn=arn), "DeleteConflict", "delete_policy of a boundary in use")
        iam.delete_user_permissions_boundary(UserName=user)
        iam.delete_policy(PolicyArn=arn)
        s3.delete_object(Bucket=bucket, Key="bounded")
        iam.delete_access_key(UserName=user, AccessKeyId=k["AccessKeyId"])
        for name in ("keys", "s3"):
            iam.delete_user_policy(UserName=user, PolicyName=name)
        iam.delete_user(UserName=user)

    t("iam: a user rotates its own keys, is refused the rest; a permissions boundary", user_calls)
