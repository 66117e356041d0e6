"""Capture SigV2 requests sent by s3cmd (signature_v2 = True).

Runs a local stub S3 server that records each request line and its headers as
received, drives the installed s3cmd against it, and writes ../s3cmd.json
(same format as botocore.json). Path-style requests go straight to the stub;
virtual-hosted-style ones go through it as an HTTP proxy, so their request
line is in absolute form ("GET http://bucket.s3.jog.test/key").

    pip install s3cmd==2.4.0 && python3 s3cmd_capture.py
"""
import hashlib
import json
import os
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

AK = "AKIAIOSFODNN7EXAMPLE"
SK = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
DOMAIN = "s3.jog.test"
BODY = b"hello"
ETAG = '"%s"' % hashlib.md5(BODY).hexdigest()

captured = []
label = {"name": "", "domain": ""}

LIST = b'<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>jog-bucket</Name><Prefix></Prefix><Marker></Marker><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>'
LOCATION = b'<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">us-east-1</LocationConstraint>'
ACL = b'<?xml version="1.0" encoding="UTF-8"?><AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>jog</ID><DisplayName>jog</DisplayName></Owner><AccessControlList><Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser"><ID>jog</ID><DisplayName>jog</DisplayName></Grantee><Permission>FULL_CONTROL</Permission></Grant></AccessControlList></AccessControlPolicy>'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self):
        lines = [self.requestline] + [f"{k}: {v}" for k, v in self.headers.items()]
        captured.append({"name": f"{label['name']}#{sum(1 for c in captured if c['name'].startswith(label['name'] + '#'))}",
                         "client": "s3cmd 2.4.0", "domain": label["domain"],
                         "raw": "\r\n".join(lines) + "\r\n\r\n"})
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def reply(self, code, body=b"", ctype="application/xml", extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", ETAG)
        self.send_header("Last-Modified", "Tue, 27 Mar 2007 19:36:42 GMT")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def target(self):
        split = urlsplit(self.path)
        host = split.netloc or self.headers.get("Host", "")
        path, query = split.path, split.query
        virtual = host.split(":")[0].endswith("." + DOMAIN)
        object_level = path.strip("/").count("/") >= (0 if virtual else 1) and path.strip("/") != ""
        if not virtual and "/" not in path.strip("/"):
            object_level = False
        return path, query, object_level

    def do_GET(self):
        self.record()
        path, query, obj = self.target()
        if "acl" in query.split("&"):
            return self.reply(200, ACL)
        if "location" in query.split("&"):
            return self.reply(200, LOCATION)
        if not obj:
            return self.reply(200, LIST)
        self.reply(200, BODY, "text/plain")

    def do_HEAD(self):
        self.record()
        self.reply(200, BODY, "text/plain")

    def do_PUT(self):
        body = self.record()
        self.reply(200, b"", extra={"ETag": '"%s"' % hashlib.md5(body).hexdigest()})

    def do_DELETE(self):
        self.record()
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        self.record()
        self.reply(200, b'<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>')


KEYS = ["photos/puppy.jpg", "a b.txt", "plus+sign", "a//b", "caf\u00e9/\u65e5\u672c",
        "semi;colon,comma=eq&amp", "tilde~quote'paren()star*", "pct%41literal"]


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    tmp = tempfile.mkdtemp()
    src = os.path.join(tmp, "src.txt")
    with open(src, "wb") as f:
        f.write(BODY)
    common = f"""[default]
access_key = {AK}
secret_key = {SK}
signature_v2 = True
use_https = False
check_ssl_certificate = False
guess_mime_type = False
"""
    cfgs = {
        "path": common + f"host_base = 127.0.0.1:{port}\nhost_bucket = 127.0.0.1:{port}\n",
        "virtual": common + f"host_base = {DOMAIN}\nhost_bucket = %(bucket)s.{DOMAIN}\nproxy_host = 127.0.0.1\nproxy_port = {port}\n",
    }
    for style, cfg in cfgs.items():
        path = os.path.join(tmp, f"{style}.cfg")
        with open(path, "w") as f:
            f.write(cfg)

        def s3(name, *args):
            label["name"] = f"{style}/{name}"
            label["domain"] = DOMAIN if style == "virtual" else ""
            p = subprocess.run(["s3cmd", "-c", path, "--no-check-md5", *args], capture_output=True, text=True)
            return p.stdout

        for i, key in enumerate(KEYS):
            s3(f"put-{i}", "put", src, f"s3://jog-bucket/{key}", "--add-header=x-amz-meta-reviewed-by: joe",
               "--mime-type=text/plain", "--disable-multipart")
            s3(f"get-{i}", "get", "--force", f"s3://jog-bucket/{key}", os.path.join(tmp, "out"))
            s3(f"del-{i}", "del", f"s3://jog-bucket/{key}")
        s3("ls", "ls", "s3://jog-bucket/a b/")
        s3("info", "info", "s3://jog-bucket/a b.txt")
        s3("setacl", "setacl", "--acl-public", "s3://jog-bucket/a b.txt")
        s3("mb", "mb", "s3://jog-new")
        for i, key in enumerate(KEYS[:3]):
            url = s3(f"signurl-{i}", "signurl", f"s3://jog-bucket/{key}", "+3600").strip()
            split = urlsplit(url)
            captured.append({"name": f"{style}/signurl-{i}", "client": "s3cmd 2.4.0",
                             "domain": DOMAIN if style == "virtual" or split.netloc.startswith("jog-bucket.") else "",
                             "raw": f"GET {split.path}?{split.query} HTTP/1.1\r\nHost: {split.netloc}\r\n\r\n"})
    srv.shutdown()
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "s3cmd.json")
    with open(out, "w") as f:
        json.dump(captured, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(captured)} requests to {out}")


if __name__ == "__main__":
    main()
