"""ceph/s3-tests encryption parity, run by boto3_test.py: our own boto3 checks.

One check per case of ceph/s3-tests' encryption tests (the cases of
s3tests_boto3/functional/test_s3.py marked `encryption` or `sse-s3`/`sse_s3`,
in the version docs/COMPATIBILITY.md names), named after the case and checking
the behaviour that case checks. None of that suite's code is used here. Where
S3 itself answers other than the case asserts (the case passes on RGW, not on
AWS), the check asserts S3's answer and its name says so: see
docs/COMPATIBILITY.md, "ceph/s3-tests encryption parity".

SSE-KMS cases use the keys JOG_KMS_KEY and JOG_KMS_KEY2 of the server's
built-in KMS (boto3_test.sh creates them with `jog admin kms create`), named
by their ARN as an AWS test configuration names them. SSE-C over the plain
HTTP endpoint needs the server's --allow-insecure-sse-c (loopback tests only).
"""

import base64
import hashlib
import json
import os

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from boto3_post import _post

MiB = 1 << 20

# The customer keys of the cases, and their MD5s (base64).
KEY_A = "pO3upElrwuEXSoFwCfnZPdSsmt/xWeFa0N9KgDijwVs="
KEY_B = "6b+WOZ1T3cqZMxgThRcXAQBrS5mXKdDUphvpxptl9/4="


def _md5(b64key):
    return base64.b64encode(hashlib.md5(base64.b64decode(b64key)).digest()).decode()


def ssec(key=KEY_A, md5=None, alg="AES256"):
    h = {}
    if alg is not None:
        h["x-amz-server-side-encryption-customer-algorithm"] = alg
    if key is not None:
        h["x-amz-server-side-encryption-customer-key"] = key
    if md5 != "":
        h["x-amz-server-side-encryption-customer-key-md5"] = md5 or _md5(key)
    return h


def with_headers(client, op, headers):
    """Adds headers to every `op` request of client, as a hand-made request would."""
    client.meta.events.register(f"before-call.s3.{op}", lambda params, **_: params["headers"].update(headers))
    return client


def status_of(fn, *args, **kw):
    """The HTTP status and S3 code of a call that must fail."""
    try:
        fn(*args, **kw)
    except ClientError as e:
        return e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Code"]
    raise AssertionError("call succeeded, want an error")


def hdr(resp, name):
    return resp["ResponseMetadata"]["HTTPHeaders"].get(name)


def checks(common, label, t, eq, client_error_code):
    https = common["endpoint_url"].startswith("https://")
    cfg = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1})
    cfg_v2 = Config(signature_version="s3", s3={"addressing_style": "path"}, retries={"max_attempts": 1})
    acct = boto3.client("sts", **common).get_caller_identity()["Account"]
    region = common["region_name"]
    arn = lambda key_id: f"arn:aws:kms:{region}:{acct}:key/{key_id}"  # noqa: E731
    kms_key, kms_key2 = arn(os.environ["JOG_KMS_KEY"]), arn(os.environ["JOG_KMS_KEY2"])
    kms = {"x-amz-server-side-encryption": "aws:kms", "x-amz-server-side-encryption-aws-kms-key-id": kms_key}
    buckets = []

    def client(v2=False):
        return boto3.client("s3", config=cfg_v2 if v2 else cfg, **common)

    def new_bucket():
        name = f"sse-{label}-{len(buckets)}"
        client().create_bucket(Bucket=name)
        buckets.append(name)
        return name

    def body(c, bucket, key, **kw):
        return c.get_object(Bucket=bucket, Key=key, **kw)["Body"].read()

    results = []

    def case(name, fn, s3_answer=None):
        results.append(t(f"s3-tests {name}" + (f" (S3's answer: {s3_answer})" if s3_answer else ""), fn))

    # --- SSE-C ---------------------------------------------------------------

    def ssec_write(size):
        b, c = new_bucket(), client()
        data = b"A" * size
        with_headers(c, "PutObject", ssec())
        with_headers(c, "GetObject", ssec())
        c.put_object(Bucket=b, Key="testobj", Body=data)
        eq(body(c, b, "testobj"), data, "body")

    for n, size in (("1b", 1), ("1kb", 1024), ("1MB", MiB), ("13b", 13)):
        case(f"test_encrypted_transfer_{n}", lambda size=size: ssec_write(size))

    def ssec_method_head():
        b, c = new_bucket(), client()
        with_headers(c, "PutObject", ssec())
        c.put_object(Bucket=b, Key="testobj", Body=b"A" * 1000)
        eq(status_of(c.head_object, Bucket=b, Key="testobj")[0], 400, "HEAD without the key")
        with_headers(c, "HeadObject", ssec())
        eq(c.head_object(Bucket=b, Key="testobj")["ResponseMetadata"]["HTTPStatusCode"], 200, "HEAD with the key")

    case("test_encryption_sse_c_method_head", ssec_method_head)

    def ssec_present():
        b, c = new_bucket(), client()
        with_headers(c, "PutObject", ssec())
        c.put_object(Bucket=b, Key="testobj", Body=b"A" * 1000)
        eq(status_of(c.get_object, Bucket=b, Key="testobj")[0], 400, "GET without the key")

    case("test_encryption_sse_c_present", ssec_present)

    def ssec_other_key():
        b, c = new_bucket(), client()
        with_headers(c, "PutObject", ssec(KEY_A))
        c.put_object(Bucket=b, Key="testobj", Body=b"A" * 100)
        with_headers(c, "GetObject", ssec(KEY_B))
        eq(status_of(c.get_object, Bucket=b, Key="testobj"), (403, "AccessDenied"), "GET with another key")

    # s3-tests asserts 400 (RGW's answer).
    case("test_encryption_sse_c_other_key", ssec_other_key, "403 AccessDenied, s3-tests wants 400")

    def put_refused(headers, want_status=400, want_code=None, v2=False):
        b, c = new_bucket(), client(v2)
        with_headers(c, "PutObject", headers)
        st, code = status_of(c.put_object, Bucket=b, Key="testobj", Body=b"A" * 100)
        eq(st, want_status, f"status ({code})")
        if want_code:
            eq(code, want_code, "code")

    case("test_encryption_sse_c_invalid_md5", lambda: put_refused(ssec(md5="AAAAAAAAAAAAAAAAAAAAAA==")))
    case("test_encryption_sse_c_no_md5", lambda: put_refused(ssec(md5="")))
    case("test_encryption_sse_c_no_key", lambda: put_refused(ssec(key=None, md5="")))
    case("test_encryption_key_no_sse_c", lambda: put_refused(ssec(alg=None)))

    def multipart(c, b, key, size, init, part, metadata=None, content_type="text/plain"):
        """A multipart upload of size random bytes in 5 MiB parts; returns (data, parts)."""
        with_headers(c, "CreateMultipartUpload", dict(init, **{"Content-Type": content_type}))
        with_headers(c, "UploadPart", part)
        up = c.create_multipart_upload(Bucket=b, Key=key, Metadata=metadata or {})["UploadId"]
        data, parts = os.urandom(size), []
        for i in range(0, size, 5 * MiB):
            n = len(parts) + 1
            r = c.upload_part(Bucket=b, Key=key, UploadId=up, PartNumber=n, Body=data[i:i + 5 * MiB])
            parts.append({"ETag": r["ETag"], "PartNumber": n})
        return up, data, parts

    def ranges_equal(c, b, key, data, step):
        for ofs in range(0, len(data), step):
            end = min(ofs + step, len(data)) - 1
            r = c.get_object(Bucket=b, Key=key, Range=f"bytes={ofs}-{end}")
            eq(r["ContentLength"], end - ofs + 1, f"length of bytes={ofs}-{end}")
            eq(r["Body"].read() == data[ofs:end + 1], True, f"bytes={ofs}-{end}")

    def multipart_read_back(c, b, key, data):
        r = c.get_object(Bucket=b, Key=key)
        eq(r["Metadata"], {"foo": "bar"}, "metadata")
        eq(r["ContentType"], "text/plain", "content type")
        eq(r["Body"].read() == data, True, "body")
        ranges_equal(c, b, key, data, 1000000)
        ranges_equal(c, b, key, data, 10000000)

    def ssec_multipart_upload():
        b, c = new_bucket(), client()
        up, data, parts = multipart(c, b, "multipart_enc", 30 * MiB, ssec(), ssec(), {"foo": "bar"})
        with_headers(c, "CompleteMultipartUpload", ssec())
        c.complete_multipart_upload(Bucket=b, Key="multipart_enc", UploadId=up, MultipartUpload={"Parts": parts})
        with_headers(c, "GetObject", ssec())
        multipart_read_back(c, b, "multipart_enc", data)

    case("test_encryption_sse_c_multipart_upload", ssec_multipart_upload)

    def ssec_invalid_chunks(part_headers):
        b, c = new_bucket(), client()
        st, code = status_of(multipart, c, b, "multipart_enc", 30 * MiB, ssec(), part_headers, {"foo": "bar"})
        eq(st, 400, f"status of UploadPart ({code})")

    case("test_encryption_sse_c_multipart_invalid_chunks_1", lambda: ssec_invalid_chunks(ssec(KEY_B)))
    case("test_encryption_sse_c_multipart_invalid_chunks_2",
         lambda: ssec_invalid_chunks(ssec(md5="AAAAAAAAAAAAAAAAAAAAAA==")))

    def ssec_multipart_bad_download():
        b, c = new_bucket(), client()
        up, data, parts = multipart(c, b, "multipart_enc", 30 * MiB, ssec(), ssec(), {"foo": "bar"})
        with_headers(c, "CompleteMultipartUpload", ssec())
        c.complete_multipart_upload(Bucket=b, Key="multipart_enc", UploadId=up, MultipartUpload={"Parts": parts})
        good = with_headers(client(), "GetObject", ssec())
        r = good.get_object(Bucket=b, Key="multipart_enc")
        eq((r["Metadata"], r["ContentType"]), ({"foo": "bar"}, "text/plain"), "metadata and content type")
        bad = with_headers(client(), "GetObject", ssec(KEY_B))
        eq(status_of(bad.get_object, Bucket=b, Key="multipart_enc"), (403, "AccessDenied"), "GET with another key")

    case("test_encryption_sse_c_multipart_bad_download", ssec_multipart_bad_download,
         "403 AccessDenied, s3-tests wants 400")

    def post(b, fields, conditions, want_get_headers=None, get_headers=None):
        c = client()
        post = c.generate_presigned_post(
            Bucket=b, Key="foo.txt", Fields=dict(fields, **{"acl": "private", "Content-Type": "text/plain"}),
            Conditions=[{"acl": "private"}, ["starts-with", "$Content-Type", "text/plain"],
                        ["content-length-range", 0, 1024]] + conditions, ExpiresIn=300)
        status, resp = _post(post["url"], post["fields"], "foo.txt", b"bar", not https)
        eq(status, 204, f"POST status ({resp[:300]!r})")
        if get_headers:
            with_headers(c, "GetObject", get_headers)
        r = c.get_object(Bucket=b, Key="foo.txt")
        for k, v in (want_get_headers or {}).items():
            eq(hdr(r, k), v, k)
        eq(r["Body"].read(), b"bar", "body")

    def starts_with(fields):
        return [["starts-with", "$" + k, ""] for k in fields]

    case("test_encryption_sse_c_post_object_authenticated_request",
         lambda: post(new_bucket(), ssec(), starts_with(ssec()), get_headers=ssec()))

    # --- SSE-KMS -------------------------------------------------------------

    def kms_method_head():
        b, c = new_bucket(), client()
        with_headers(c, "PutObject", kms)
        c.put_object(Bucket=b, Key="testobj", Body=b"A" * 1000)
        r = c.head_object(Bucket=b, Key="testobj")
        eq(hdr(r, "x-amz-server-side-encryption"), "aws:kms", "x-amz-server-side-encryption")
        eq(hdr(r, "x-amz-server-side-encryption-aws-kms-key-id"), kms_key, "key id")
        with_headers(c, "HeadObject", kms)
        eq(status_of(c.head_object, Bucket=b, Key="testobj")[0], 400, "HEAD with SSE-KMS headers")

    case("test_sse_kms_method_head", kms_method_head)

    def kms_write(size, headers=kms):
        b, c = new_bucket(), client()
        with_headers(c, "PutObject", headers)
        data = b"A" * size
        r = c.put_object(Bucket=b, Key="testobj", Body=data)
        eq(hdr(r, "x-amz-server-side-encryption"), "aws:kms", "x-amz-server-side-encryption of the PUT")
        eq(body(c, b, "testobj"), data, "body")

    case("test_sse_kms_present", lambda: kms_write(100))
    # s3-tests wants the PUT refused; S3 seals with the account's aws/s3 key.
    case("test_sse_kms_no_key", lambda: kms_write(100, {"x-amz-server-side-encryption": "aws:kms"}),
         "200 under the default key, s3-tests wants an error")
    case("test_sse_kms_not_declared",
         lambda: put_refused({"x-amz-server-side-encryption-aws-kms-key-id": kms_key2}))

    def kms_multipart_upload():
        b, c = new_bucket(), client()
        # As the case does, the parts carry the upload's SSE-KMS headers too.
        up, data, parts = multipart(c, b, "multipart_enc", 30 * MiB, kms, kms, {"foo": "bar"})
        c.complete_multipart_upload(Bucket=b, Key="multipart_enc", UploadId=up, MultipartUpload={"Parts": parts})
        multipart_read_back(c, b, "multipart_enc", data)

    case("test_sse_kms_multipart_upload", kms_multipart_upload)

    def kms_invalid_chunks(part_key):
        # The case asserts only that the upload goes through: the parts'
        # SSE-KMS headers name another key, or none that exists.
        b, c = new_bucket(), client()
        multipart(c, b, "multipart_enc", 30 * MiB, kms, dict(kms, **{"x-amz-server-side-encryption-aws-kms-key-id": part_key}),
                  {"foo": "bar"}, "text/bla")

    case("test_sse_kms_multipart_invalid_chunks_1", lambda: kms_invalid_chunks(kms_key2))
    case("test_sse_kms_multipart_invalid_chunks_2", lambda: kms_invalid_chunks("testkey-not-present"))
    case("test_sse_kms_post_object_authenticated_request",
         lambda: post(new_bucket(), kms, starts_with(kms), {"x-amz-server-side-encryption": "aws:kms"}))
    for n, size in (("1b", 1), ("1kb", 1024), ("1MB", MiB), ("13b", 13)):
        case(f"test_sse_kms_transfer_{n}", lambda size=size: kms_write(size))

    def kms_read_declare():
        b, c = new_bucket(), client()
        c.put_object(Bucket=b, Key="testobj", Body=b"A" * 100)
        with_headers(c, "GetObject", kms)
        eq(status_of(c.get_object, Bucket=b, Key="testobj")[0], 400, "GET with SSE-KMS headers")

    case("test_sse_kms_read_declare", kms_read_declare)

    # --- conflicting headers (SigV2 clients, as the cases use) ----------------

    case("test_put_obj_enc_conflict_c_s3",
         lambda: put_refused(dict(ssec(), **{"x-amz-server-side-encryption": "AES256"}), 400, "InvalidArgument", True))
    case("test_put_obj_enc_conflict_c_kms", lambda: put_refused(dict(ssec(), **kms), 400, "InvalidArgument", True))
    case("test_put_obj_enc_conflict_s3_kms",
         lambda: put_refused({"x-amz-server-side-encryption": "AES256",
                              "x-amz-server-side-encryption-aws-kms-key-id": kms_key}, 400, "InvalidArgument", True))
    case("test_put_obj_enc_conflict_bad_enc_kms",
         lambda: put_refused({"x-amz-server-side-encryption": "aes:kms"}, 400, "InvalidArgument", True))

    # --- bucket policies on s3:x-amz-server-side-encryption -------------------
    # s3-tests' main user is bound by its bucket's policy. JOG's root
    # credentials are bound by none (docs/SECURITY.md), so these cases write
    # as an IAM user of the account allowed s3:*.
    user_keys = {}

    def user_client():
        if not user_keys:
            iam, user = boto3.client("iam", **common), f"sse-parity-{label}"
            iam.create_user(UserName=user)
            iam.put_user_policy(UserName=user, PolicyName="s3", PolicyDocument=json.dumps(
                {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
            k = iam.create_access_key(UserName=user)["AccessKey"]
            user_keys.update(aws_access_key_id=k["AccessKeyId"], aws_secret_access_key=k["SecretAccessKey"])
        return boto3.client("s3", config=cfg_v2, **dict(common, **user_keys))

    def deny_unless(algorithm):
        b = new_bucket()
        res = f"arn:aws:s3:::{b}/*"
        client().put_bucket_policy(Bucket=b, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": res,
             "Condition": {"StringNotEquals": {"s3:x-amz-server-side-encryption": algorithm}}},
            {"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": res,
             "Condition": {"Null": {"s3:x-amz-server-side-encryption": "true"}}}]}))
        return b, user_client()

    def policy_s3_noenc():
        b, c = deny_unless("AES256")
        r = c.put_object(Bucket=b, Key="testobj", ServerSideEncryption="AES256")
        eq(hdr(r, "x-amz-server-side-encryption"), "AES256", "SSE-S3 PUT allowed")
        eq(status_of(c.put_object, Bucket=b, Key="testobj", Body=b"testobj"), (403, "AccessDenied"), "plain PUT")

    def policy_s3_kms():
        b, c = deny_unless("AES256")
        with_headers(c, "PutObject", kms)
        eq(status_of(c.put_object, Bucket=b, Key="testobj", Body=b"testobj"), (403, "AccessDenied"), "SSE-KMS PUT")

    def policy_kms_noenc():
        b, c = deny_unless("aws:kms")
        r = c.put_object(Bucket=b, Key="testobj", ServerSideEncryption="aws:kms", SSEKMSKeyId=kms_key)
        eq(hdr(r, "x-amz-server-side-encryption"), "aws:kms", "SSE-KMS PUT allowed")
        eq(hdr(r, "x-amz-server-side-encryption-aws-kms-key-id"), kms_key, "key id")
        eq(status_of(c.put_object, Bucket=b, Key="unicorn", Body=b"unicorn"), (403, "AccessDenied"), "plain PUT")

    def policy_kms_s3():
        b, c = deny_unless("aws:kms")
        with_headers(c, "PutObject", {"x-amz-server-side-encryption": "AES256"})
        eq(status_of(c.put_object, Bucket=b, Key="testobj", Body=b"testobj"), (403, "AccessDenied"), "SSE-S3 PUT")

    case("test_bucket_policy_put_obj_s3_noenc", policy_s3_noenc)
    case("test_bucket_policy_put_obj_s3_kms", policy_s3_kms)
    case("test_bucket_policy_put_obj_kms_noenc", policy_kms_noenc)
    case("test_bucket_policy_put_obj_kms_s3", policy_kms_s3)

    # --- bucket default encryption ---------------------------------------------

    def put_default(b, algorithm):
        rule = {"SSEAlgorithm": algorithm}
        if algorithm == "aws:kms":
            rule["KMSMasterKeyID"] = kms_key
        r = client().put_bucket_encryption(Bucket=b, ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": rule}]})
        eq(r["ResponseMetadata"]["HTTPStatusCode"], 200, "PutBucketEncryption status")

    def no_config(b):
        eq(client_error_code(client().get_bucket_encryption, Bucket=b), "ServerSideEncryptionConfigurationNotFoundError",
           "GetBucketEncryption without a configuration")

    def get_default(algorithm):
        b = new_bucket()
        no_config(b)
        put_default(b, algorithm)
        r = client().get_bucket_encryption(Bucket=b)
        rule = r["ServerSideEncryptionConfiguration"]["Rules"][0]["ApplyServerSideEncryptionByDefault"]
        eq(rule["SSEAlgorithm"], algorithm, "SSEAlgorithm")
        if algorithm == "aws:kms":
            eq(rule.get("KMSMasterKeyID"), kms_key, "KMSMasterKeyID")

    def delete_default(algorithm):
        b, c = new_bucket(), client()
        eq(c.delete_bucket_encryption(Bucket=b)["ResponseMetadata"]["HTTPStatusCode"], 204, "delete without one")
        put_default(b, algorithm)
        eq(c.delete_bucket_encryption(Bucket=b)["ResponseMetadata"]["HTTPStatusCode"], 204, "delete")
        no_config(b)

    case("test_put_bucket_encryption_s3", lambda: put_default(new_bucket(), "AES256"))
    case("test_put_bucket_encryption_kms", lambda: put_default(new_bucket(), "aws:kms"))
    case("test_get_bucket_encryption_s3", lambda: get_default("AES256"))
    case("test_get_bucket_encryption_kms", lambda: get_default("aws:kms"))
    case("test_delete_bucket_encryption_s3", lambda: delete_default("AES256"))
    case("test_delete_bucket_encryption_kms", lambda: delete_default("aws:kms"))

    def default_upload(algorithm, size):
        b, c = new_bucket(), client()
        put_default(b, algorithm)
        data = b"A" * size
        for r in (c.put_object(Bucket=b, Key="testobj", Body=data), c.get_object(Bucket=b, Key="testobj")):
            eq(hdr(r, "x-amz-server-side-encryption"), algorithm, "x-amz-server-side-encryption")
            if algorithm == "aws:kms":
                eq(hdr(r, "x-amz-server-side-encryption-aws-kms-key-id"), kms_key, "key id")
        eq(body(c, b, "testobj"), data, "body")

    for n, size in (("1b", 1), ("1kb", 1024), ("1mb", MiB), ("8mb", 8 * MiB)):
        case(f"test_sse_s3_default_upload_{n}", lambda size=size: default_upload("AES256", size))
    for n, size in (("1b", 1), ("1kb", 1024), ("1mb", MiB), ("8mb", 8 * MiB)):
        case(f"test_sse_kms_default_upload_{n}", lambda size=size: default_upload("aws:kms", size))

    def s3_default_method_head():
        b, c = new_bucket(), client()
        put_default(b, "AES256")
        c.put_object(Bucket=b, Key="testobj", Body=b"A" * 1000)
        eq(hdr(c.head_object(Bucket=b, Key="testobj"), "x-amz-server-side-encryption"), "AES256", "HEAD")
        with_headers(c, "HeadObject", {"x-amz-server-side-encryption": "AES256"})
        eq(status_of(c.head_object, Bucket=b, Key="testobj")[0], 400, "HEAD with x-amz-server-side-encryption")

    case("test_sse_s3_default_method_head", s3_default_method_head)

    def s3_default_multipart_upload():
        b, c = new_bucket(), client()
        put_default(b, "AES256")
        up, data, parts = multipart(c, b, "multipart_enc", 30 * MiB, {}, {}, {"foo": "bar"})
        c.complete_multipart_upload(Bucket=b, Key="multipart_enc", UploadId=up, MultipartUpload={"Parts": parts})
        multipart_read_back(c, b, "multipart_enc", data)

    case("test_sse_s3_default_multipart_upload", s3_default_multipart_upload)

    def default_post(algorithm):
        b = new_bucket()
        put_default(b, algorithm)
        want = {"x-amz-server-side-encryption": algorithm}
        if algorithm == "aws:kms":
            want["x-amz-server-side-encryption-aws-kms-key-id"] = kms_key
        post(b, {}, [], want)

    case("test_sse_s3_default_post_object_authenticated_request", lambda: default_post("AES256"))
    case("test_sse_kms_default_post_object_authenticated_request", lambda: default_post("aws:kms"))

    def s3_encrypted_upload(size):
        b, c = new_bucket(), client()
        data = b"A" * size
        r = c.put_object(Bucket=b, Key="testobj", Body=data, ServerSideEncryption="AES256")
        eq(hdr(r, "x-amz-server-side-encryption"), "AES256", "PUT")
        r = c.get_object(Bucket=b, Key="testobj")
        eq(hdr(r, "x-amz-server-side-encryption"), "AES256", "GET")
        eq(r["Body"].read(), data, "body")

    for n, size in (("1b", 1), ("1kb", 1024), ("1mb", MiB), ("8mb", 8 * MiB)):
        case(f"test_sse_s3_encrypted_upload_{n}", lambda size=size: s3_encrypted_upload(size))

    def cleanup():
        c = client()
        for b in buckets:
            for up in c.list_multipart_uploads(Bucket=b).get("Uploads", []):
                c.abort_multipart_upload(Bucket=b, Key=up["Key"], UploadId=up["UploadId"])
            for o in c.list_objects_v2(Bucket=b).get("Contents", []):
                c.delete_object(Bucket=b, Key=o["Key"])
            c.delete_bucket(Bucket=b)

    t("encryption parity: remove its buckets", cleanup)
    print(f"[{label}] ceph/s3-tests encryption parity: {sum(results)} of {len(results)} cases pass")
