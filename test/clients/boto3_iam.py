"""boto3 checks of JOG's IAM API, run by boto3_test.py.

boto3's iam client, pointed at the same endpoint as S3, signs for service
iam; botocore decodes the URL-encoded policy documents IAM returns into
dicts, so the round trip below proves JOG encodes them as IAM does.
"""

import json

import boto3

POLICY = {"Version": "2012-10-17",
          "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/a b+c"}]}
TRUST = {"Version": "2012-10-17",
         "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}


def checks(common, label, t, eq, client_error_code):
    iam = boto3.client("iam", **common)
    user, group, role = f"boto3-{label}", f"boto3-{label}-g", f"boto3-{label}-r"

    def users_and_keys():
        u = iam.create_user(UserName=user, Path="/boto3/")["User"]
        eq((u["UserName"], u["Path"], u["Arn"].endswith(f":user/boto3/{user}")), (user, "/boto3/", True), "create_user")
        eq(client_error_code(iam.create_user, UserName=user), "EntityAlreadyExists", "create_user again")
        eq(client_error_code(iam.get_user, UserName="nobody"), "NoSuchEntity", "get_user missing")
        names = [u["UserName"] for p in iam.get_paginator("list_users").paginate(PathPrefix="/boto3/") for u in p["Users"]]
        eq(user in names, True, "list_users (paginator)")
        k = iam.create_access_key(UserName=user)["AccessKey"]
        eq((len(k["AccessKeyId"]), len(k["SecretAccessKey"]), k["Status"]), (20, 40, "Active"), "create_access_key")
        iam.update_access_key(UserName=user, AccessKeyId=k["AccessKeyId"], Status="Inactive")
        md = iam.list_access_keys(UserName=user)["AccessKeyMetadata"]
        eq([(m["AccessKeyId"], m["Status"]) for m in md], [(k["AccessKeyId"], "Inactive")], "list_access_keys")
        eq(client_error_code(iam.delete_user, UserName=user), "DeleteConflict", "delete_user with a key")
        iam.delete_access_key(UserName=user, AccessKeyId=k["AccessKeyId"])

    t("iam: users and access keys", users_and_keys)

    def policies():
        iam.put_user_policy(UserName=user, PolicyName="read", PolicyDocument=json.dumps(POLICY))
        got = iam.get_user_policy(UserName=user, PolicyName="read")
        eq(got["PolicyDocument"], POLICY, "get_user_policy: botocore decodes the URL-encoded document")
        eq(client_error_code(iam.put_user_policy, UserName=user, PolicyName="bad",
                             PolicyDocument='{"Statement":[{"Effect":"Perhaps"}]}'), "MalformedPolicyDocument", "malformed")
        arn = iam.create_policy(PolicyName=f"{user}-p", PolicyDocument=json.dumps(POLICY))["Policy"]["Arn"]
        iam.attach_user_policy(UserName=user, PolicyArn=arn)
        att = iam.list_attached_user_policies(UserName=user)["AttachedPolicies"]
        eq([a["PolicyArn"] for a in att], [arn], "list_attached_user_policies")
        v = iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]
        eq(v["Document"], POLICY, "get_policy_version document")
        iam.create_group(GroupName=group)
        iam.add_user_to_group(GroupName=group, UserName=user)
        eq([u["UserName"] for u in iam.get_group(GroupName=group)["Users"]], [user], "get_group members")
        r = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
        eq(r["AssumeRolePolicyDocument"], TRUST, "create_role trust policy")
        eq(client_error_code(iam.delete_policy, PolicyArn=arn), "DeleteConflict", "delete_policy attached")
        iam.delete_role(RoleName=role)
        iam.remove_user_from_group(GroupName=group, UserName=user)
        iam.delete_group(GroupName=group)
        iam.detach_user_policy(UserName=user, PolicyArn=arn)
        iam.delete_policy(PolicyArn=arn)
        iam.delete_user_policy(UserName=user, PolicyName="read")
        iam.delete_user(UserName=user)
        eq(client_error_code(iam.get_user, UserName=user), "NoSuchEntity", "user gone")

    t("iam: inline and managed policies, groups, roles", policies)

    def refused():
        bad = boto3.client("iam", **dict(common, aws_access_key_id="AKIAUNKNOWN000000000"))
        eq(client_error_code(bad.list_users), "InvalidClientTokenId", "unknown key")

    t("iam: an unknown key is refused", refused)
