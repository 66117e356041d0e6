"""boto3 checks of browser-based uploads (PostObject), run by boto3_test.py.

The form comes from boto3's generate_presigned_post (botocore's own SigV4
POST signer) and is sent as multipart/form-data with requests, or with
urllib when requests is not installed.
"""

import re
import ssl
import urllib.error
import urllib.request
import uuid

try:
    import requests
except ImportError:  # pragma: no cover - depends on the machine
    requests = None


def _post(url, fields, filename, content, verify):
    """POSTs the form; returns (status, body bytes). Redirects not followed."""
    if requests is not None:
        files = {"file": (filename, content)}
        r = requests.post(url, data=fields, files=files, verify=verify, allow_redirects=False, timeout=30)
        return r.status_code, r.content
    boundary = uuid.uuid4().hex
    parts = []
    for k, v in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode() + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    req = urllib.request.Request(url, data=b"".join(parts), method="POST",
                                 headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    ctx = None if verify else ssl._create_unverified_context()  # noqa: S323 - the test server's self-signed cert
    try:
        with urllib.request.urlopen(req, context=ctx) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _code(body):
    m = re.search(rb"<Code>([^<]*)</Code>", body)
    return m.group(1).decode() if m else None


def checks(s3, bucket, t, eq, client_error_code):
    verify = not s3.meta.endpoint_url.startswith("https://")

    def presigned_post():
        post = s3.generate_presigned_post(
            Bucket=bucket, Key="post/${filename}",
            Fields={"success_action_status": "201", "Content-Type": "text/plain"},
            Conditions=[{"success_action_status": "201"}, {"Content-Type": "text/plain"},
                        ["content-length-range", 1, 1024]],
            ExpiresIn=300)
        status, body = _post(post["url"], post["fields"], "note.txt", b"posted by boto3", verify)
        eq(status, 201, f"status ({body[:300]!r})")
        eq(b"<Key>post/note.txt</Key>" in body, True, "PostResponse names the key")
        got = s3.get_object(Bucket=bucket, Key="post/note.txt")
        eq(got["Body"].read(), b"posted by boto3", "stored bytes")
        eq(got["ContentType"], "text/plain", "stored Content-Type")

        status, body = _post(post["url"], post["fields"], "big.txt", b"x" * 1025, verify)
        eq((status, _code(body)), (400, "EntityTooLarge"), "over content-length-range")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="post/big.txt"), "404", "nothing stored")

        changed = dict(post["fields"], **{"Content-Type": "text/html"})
        status, body = _post(post["url"], changed, "page.html", b"<p>", verify)
        eq((status, _code(body)), (403, "AccessDenied"), "a field the policy fixes, changed")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="post/page.html"), "404", "nothing stored")
        s3.delete_object(Bucket=bucket, Key="post/note.txt")

    t("generate_presigned_post: form upload, content-length-range, a changed field refused", presigned_post)
