"""boto3 checks of ACLs, Object Ownership and PublicAccessBlock, run by
boto3_test.py: a bucket with ACLs enabled (ObjectWriter), a public-read
object read by an unsigned client and by urllib without keys, grants
round-tripped, refusals where ACLs are disabled, each refusal leaving the
ACL as it was.
"""

import urllib.error
import urllib.request

import boto3
from botocore import UNSIGNED
from botocore.config import Config

ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"


def grants(acl):
    return sorted((g["Grantee"]["Type"], g["Grantee"].get("URI", "owner"), g["Permission"]) for g in acl["Grants"])


def checks(common, label, t, eq, client_error_code):
    cfg = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2, "mode": "standard"})
    s3 = boto3.client("s3", config=cfg, **common)
    anon = boto3.client("s3", config=cfg.merge(Config(signature_version=UNSIGNED)),
                        endpoint_url=common["endpoint_url"], region_name=common["region_name"], verify=common.get("verify"))
    bucket, plain = f"boto3-acl-{label}", f"boto3-noacl-{label}"
    url = f"{common['endpoint_url']}/{bucket}/pub"

    def get_status(u):
        try:
            with urllib.request.urlopen(u) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, b""

    def object_writer():
        s3.create_bucket(Bucket=bucket, ObjectOwnership="ObjectWriter")
        eq(s3.get_bucket_ownership_controls(Bucket=bucket)["OwnershipControls"]["Rules"][0]["ObjectOwnership"],
           "ObjectWriter", "ownership of the new bucket")
        s3.put_object(Bucket=bucket, Key="pub", Body=b"public bytes", ACL="public-read")
        s3.put_object(Bucket=bucket, Key="priv", Body=b"private bytes")
        eq(anon.get_object(Bucket=bucket, Key="pub")["Body"].read(), b"public bytes", "unsigned boto3 reads public-read")
        eq(client_error_code(anon.get_object, Bucket=bucket, Key="priv"), "AccessDenied", "unsigned boto3 refused private")
        if url.startswith("http:"):
            eq(get_status(url), (200, b"public bytes"), "urllib without keys")
        eq(grants(s3.get_object_acl(Bucket=bucket, Key="pub")),
           [("CanonicalUser", "owner", "FULL_CONTROL"), ("Group", ALL_USERS, "READ")], "get_object_acl")

    t("ObjectWriter bucket: public-read object served unsigned, private refused", object_writer)

    def grant_round_trip():
        owner = s3.get_bucket_acl(Bucket=bucket)["Owner"]
        policy = {"Owner": owner, "Grants": [
            {"Grantee": {"Type": "CanonicalUser", "ID": owner["ID"]}, "Permission": "FULL_CONTROL"},
            {"Grantee": {"Type": "Group", "URI": ALL_USERS}, "Permission": "READ"}]}
        s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy=policy)
        want = [("CanonicalUser", "owner", "FULL_CONTROL"), ("Group", ALL_USERS, "READ")]
        eq(grants(s3.get_bucket_acl(Bucket=bucket)), want, "put/get_bucket_acl with grant XML")
        eq(sorted(o["Key"] for o in anon.list_objects_v2(Bucket=bucket)["Contents"]), ["priv", "pub"],
           "unsigned list of a public-read bucket")
        bad = {"Owner": owner, "Grants": [{"Grantee": {"Type": "AmazonCustomerByEmail", "EmailAddress": "a@example.com"},
                                           "Permission": "READ"}]}
        eq(client_error_code(s3.put_bucket_acl, Bucket=bucket, AccessControlPolicy=bad),
           "UnresolvableGrantByEmailAddress", "e-mail grantee")
        eq(grants(s3.get_bucket_acl(Bucket=bucket)), want, "unchanged by the refusal")
        s3.put_object_acl(Bucket=bucket, Key="pub", ACL="private")
        eq(client_error_code(anon.get_object, Bucket=bucket, Key="pub"), "AccessDenied", "private after put_object_acl")
        s3.put_bucket_acl(Bucket=bucket, ACL="private")

    t("grant XML round trip, e-mail grantee refused, put_object_acl", grant_round_trip)

    def public_access_block():
        eq(client_error_code(s3.get_public_access_block, Bucket=bucket), "NoSuchPublicAccessBlockConfiguration", "none")
        s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={"BlockPublicAcls": True})
        eq(client_error_code(s3.put_object, Bucket=bucket, Key="blocked", Body=b"x", ACL="public-read"),
           "AccessDenied", "BlockPublicAcls")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="blocked"), "404", "nothing stored")
        eq(s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"]["BlockPublicAcls"], True, "read back")
        s3.delete_public_access_block(Bucket=bucket)

    t("put/get/delete_public_access_block, BlockPublicAcls", public_access_block)

    def disabled():
        s3.create_bucket(Bucket=plain)
        eq(client_error_code(s3.put_object, Bucket=plain, Key="k", Body=b"x", ACL="public-read"),
           "AccessControlListNotSupported", "public-read where ACLs are disabled")
        s3.put_object(Bucket=plain, Key="k", Body=b"x", ACL="bucket-owner-full-control")
        eq(grants(s3.get_object_acl(Bucket=plain, Key="k")), [("CanonicalUser", "owner", "FULL_CONTROL")], "owner only")
        eq(client_error_code(s3.put_bucket_ownership_controls, Bucket=bucket,
                             OwnershipControls={"Rules": [{"ObjectOwnership": "Nobody"}]}), "MalformedXML", "bad setting")

    t("BucketOwnerEnforced: ACLs refused, bucket-owner-full-control taken", disabled)

    def cleanup():
        for b in (bucket, plain):
            for o in s3.list_objects_v2(Bucket=b).get("Contents", []):
                s3.delete_object(Bucket=b, Key=o["Key"])
            s3.delete_bucket(Bucket=b)

    t("ACL buckets removed", cleanup)
