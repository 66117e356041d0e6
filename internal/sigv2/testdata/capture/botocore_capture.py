"""Capture SigV2 requests signed by botocore (signature_version "s3").

Writes ../botocore.json: a list of {name, client, domain, raw} where raw is the
request line and headers exactly as botocore would send them. Nothing is sent:
a before-send hook records the prepared request and answers with a stub.

    python3 botocore_capture.py
"""
import json
import os
from urllib.parse import urlsplit

import botocore
import botocore.session
from botocore.awsrequest import AWSResponse
from botocore.config import Config

AK = "AKIAIOSFODNN7EXAMPLE"
SK = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
DOMAIN = "s3.jog.test"

captured = []


class Stub:
    status = 200
    headers = {}

    def stream(self, *a, **k):
        return iter([b""])

    def read(self, *a, **k):
        return b""


def raw_request(req):
    split = urlsplit(req.url)
    target = split.path or "/"
    if split.query:
        target += "?" + split.query
    lines = [f"{req.method} {target} HTTP/1.1", f"Host: {split.netloc}"]
    for k, v in req.headers.items():
        if isinstance(v, bytes):
            v = v.decode()
        lines.append(f"{k}: {v}")
    return "\r\n".join(lines) + "\r\n\r\n"


def client(style):
    s = botocore.session.get_session()
    cfg = Config(signature_version="s3", s3={"addressing_style": style},
                 retries={"max_attempts": 1})
    c = s.create_client("s3", region_name="us-east-1", endpoint_url=f"http://{DOMAIN}",
                        aws_access_key_id=AK, aws_secret_access_key=SK, config=cfg)
    return c


def run(style, name, fn):
    c = client(style)
    got = []

    def hook(request, **kw):
        got.append(raw_request(request))
        return AWSResponse(request.url, 200, {}, Stub())

    c.meta.events.register("before-send.s3", hook)
    try:
        fn(c)
    except Exception:
        pass  # the stub response may not parse; the request is captured
    for raw in got[:1]:
        captured.append({"name": f"{style}/{name}", "client": f"botocore {botocore.__version__}",
                         "domain": DOMAIN if style == "virtual" else "", "raw": raw})


KEYS = ["photos/puppy.jpg", "a b.txt", "plus+sign", "a//b", "caf\u00e9/\u65e5\u672c/\U0001F600",
        "semi;colon,comma=eq&amp", "tilde~quote'paren()star*", "pct%41literal", "q?mark#hash"]


def main():
    for style in ("path", "virtual"):
        for i, key in enumerate(KEYS):
            run(style, f"put-{i}", lambda c, k=key: c.put_object(
                Bucket="jog-bucket", Key=k, Body=b"hello", ContentType="text/plain",
                Metadata={"Reviewed-By": "joe", "checksum": "  spaced  value "}, ACL="public-read"))
            run(style, f"get-{i}", lambda c, k=key: c.get_object(Bucket="jog-bucket", Key=k))
        run(style, "get-response-overrides", lambda c: c.get_object(
            Bucket="jog-bucket", Key="a b.txt", ResponseContentDisposition='attachment; filename="x y.txt"',
            ResponseContentType="text/plain; charset=utf-8", ResponseCacheControl="no-cache"))
        run(style, "get-version", lambda c: c.get_object(Bucket="jog-bucket", Key="k", VersionId="v1+/=x"))
        run(style, "get-acl", lambda c: c.get_object_acl(Bucket="jog-bucket", Key="a b.txt"))
        run(style, "list", lambda c: c.list_objects(Bucket="jog-bucket", Prefix="a b/", Delimiter="/", MaxKeys=50))
        run(style, "list-v2", lambda c: c.list_objects_v2(Bucket="jog-bucket", Prefix="caf\u00e9"))
        run(style, "location", lambda c: c.get_bucket_location(Bucket="jog-bucket"))
        run(style, "create-mpu", lambda c: c.create_multipart_upload(Bucket="jog-bucket", Key="big file"))
        run(style, "upload-part", lambda c: c.upload_part(
            Bucket="jog-bucket", Key="big file", PartNumber=3, UploadId="up/load+id=", Body=b"x"))
        run(style, "delete-objects", lambda c: c.delete_objects(
            Bucket="jog-bucket", Delete={"Objects": [{"Key": "a"}, {"Key": "b c"}]}))
        run(style, "tagging", lambda c: c.put_object_tagging(
            Bucket="jog-bucket", Key="a", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]}))
        run(style, "copy", lambda c: c.copy_object(
            Bucket="jog-bucket", Key="dst key", CopySource={"Bucket": "src", "Key": "caf\u00e9 x"}))
        run(style, "delete", lambda c: c.delete_object(Bucket="jog-bucket", Key="plus+sign"))
        run(style, "head-bucket", lambda c: c.head_bucket(Bucket="jog-bucket"))
    run("path", "list-buckets", lambda c: c.list_buckets())

    # Presigned URLs (HmacV1QueryAuth).
    for style in ("path", "virtual"):
        c = client(style)
        for i, key in enumerate(KEYS):
            url = c.generate_presigned_url("get_object", Params={"Bucket": "jog-bucket", "Key": key}, ExpiresIn=3600)
            add_presigned(style, f"presign-get-{i}", url)
        url = c.generate_presigned_url("get_object", Params={
            "Bucket": "jog-bucket", "Key": "a b.txt",
            "ResponseContentDisposition": 'attachment; filename="x y.txt"',
            "ResponseContentType": "image/svg+xml"}, ExpiresIn=3600)
        add_presigned(style, "presign-get-overrides", url)
        url = c.generate_presigned_url("put_object", Params={"Bucket": "jog-bucket", "Key": "up load"}, ExpiresIn=3600)
        add_presigned(style, "presign-put", url, method="PUT")

    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "botocore.json")
    with open(out, "w") as f:
        json.dump(captured, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(captured)} requests to {out}")


def add_presigned(style, name, url, method="GET"):
    split = urlsplit(url)
    raw = f"{method} {split.path}?{split.query} HTTP/1.1\r\nHost: {split.netloc}\r\n\r\n"
    captured.append({"name": f"{style}/{name}", "client": f"botocore {botocore.__version__}",
                     "domain": DOMAIN if style == "virtual" else "", "raw": raw})


if __name__ == "__main__":
    main()
