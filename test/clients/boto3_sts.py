"""boto3 checks of JOG's STS API, run by boto3_test.py.

A user assumes a role whose trust policy names it; boto3's S3 client with
the temporary credentials (aws_session_token) reads what the role's policy
allows and nothing else, also by presigned URLs (boto3's default SigV2
presigner, which moves x-amz-security-token into the query, and s3v4);
GetSessionToken and GetCallerIdentity answer as STS does.
"""

import json
import ssl
import urllib.request

import boto3
from botocore.config import Config


def checks(common, label, t, eq, client_error_code):
    iam = boto3.client("iam", **common)
    s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **common)
    user, role, bucket = f"boto3-{label}-sts", f"boto3-{label}-sts-r", f"boto3-{label}-sts"
    ctx = ssl._create_unverified_context() if common.get("verify") is False else None  # noqa: S323 - test certificate
    state = {}

    def setup():
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="obj", Body=b"role data")
        arn = iam.create_user(UserName=user)["User"]["Arn"]
        k = iam.create_access_key(UserName=user)["AccessKey"]
        trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": arn}, "Action": "sts:AssumeRole"}]}
        state["role"] = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
        read = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
                                                        "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]}]}
        iam.put_role_policy(RoleName=role, PolicyName="read", PolicyDocument=json.dumps(read))
        state["user"] = dict(common, aws_access_key_id=k["AccessKeyId"], aws_secret_access_key=k["SecretAccessKey"])
        state["arn"] = arn

    t("sts: a user, its key, a role trusting it", setup)

    def assume_role():
        sts = boto3.client("sts", **state["user"])
        out = sts.assume_role(RoleArn=state["role"], RoleSessionName="boto3", DurationSeconds=900)
        c = out["Credentials"]
        eq((c["AccessKeyId"][:4], out["AssumedRoleUser"]["Arn"].endswith(f":assumed-role/{role}/boto3")), ("ASIA", True),
           "assume_role credentials and ARN")
        sess = dict(common, aws_access_key_id=c["AccessKeyId"], aws_secret_access_key=c["SecretAccessKey"],
                    aws_session_token=c["SessionToken"])
        me = boto3.client("sts", **sess).get_caller_identity()
        eq(me["Arn"], out["AssumedRoleUser"]["Arn"], "get_caller_identity of the session")
        ss3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **sess)
        eq(ss3.get_object(Bucket=bucket, Key="obj")["Body"].read(), b"role data", "the session reads")
        eq(client_error_code(ss3.put_object, Bucket=bucket, Key="obj", Body=b"no"), "AccessDenied", "the session may not write")
        eq(s3.get_object(Bucket=bucket, Key="obj")["Body"].read(), b"role data", "the object is unchanged")
        for name, client in (("SigV2", ss3), ("s3v4", boto3.client("s3", config=Config(signature_version="s3v4",
                                                                      s3={"addressing_style": "path"}), **sess))):
            url = client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "obj"}, ExpiresIn=300)
            eq("ecurity-" in url, True, f"{name} presigned URL carries the token")
            with urllib.request.urlopen(url, context=ctx) as resp:
                eq(resp.read(), b"role data", f"{name} presigned GET with a session token")
        eq(client_error_code(sts.assume_role, RoleArn=state["role"], RoleSessionName="x y"), "ValidationError",
           "a space in the session name")

    t("sts: assume_role, then S3 with the session's credentials", assume_role)

    def session_token():
        sts = boto3.client("sts", **state["user"])
        c = sts.get_session_token(DurationSeconds=900)["Credentials"]
        sess = dict(common, aws_access_key_id=c["AccessKeyId"], aws_secret_access_key=c["SecretAccessKey"],
                    aws_session_token=c["SessionToken"])
        eq(boto3.client("sts", **sess).get_caller_identity()["Arn"], state["arn"], "get_caller_identity of a user's session")
        bad = dict(sess, aws_session_token=c["SessionToken"][:-2] + ("AA" if not c["SessionToken"].endswith("AA") else "BB"))
        eq(client_error_code(boto3.client("sts", **bad).get_caller_identity), "InvalidClientTokenId", "a damaged token")

    t("sts: get_session_token and get_caller_identity", session_token)

    def cleanup():
        iam.delete_role_policy(RoleName=role, PolicyName="read")
        iam.delete_role(RoleName=role)
        for k in iam.list_access_keys(UserName=user)["AccessKeyMetadata"]:
            iam.delete_access_key(UserName=user, AccessKeyId=k["AccessKeyId"])
        iam.delete_user(UserName=user)
        s3.delete_object(Bucket=bucket, Key="obj")
        s3.delete_bucket(Bucket=bucket)

    t("sts: clean up", cleanup)
