#!/usr/bin/env python3
"""End-to-end check of JOG with boto3 (no pytest).

Usage: boto3_test.py ENDPOINT [ENDPOINT...]

Runs the same suite against every endpoint (http:// and https://; TLS
certificates are not verified). Credentials come from JOG_ACCESS_KEY,
JOG_SECRET_KEY and JOG_REGION; scratch files go to JOG_TMP (default: a new
temp dir). boto3 runs with its defaults: since 1.36 it sends a CRC32 of every
upload, as a header over HTTP and as an aws-chunked trailer
(STREAMING-UNSIGNED-PAYLOAD-TRAILER) over HTTPS; the suite checks from the
client side that it really did. Every read is compared with the bytes
written.

Prints one line per check and "N passed, M failed"; exits 1 on failure.
"""

import base64
import datetime
import hashlib
import http.client
import io
import os
import ssl
import sys
import tempfile
import traceback
import urllib.parse
import urllib.request
import warnings
import zlib

import boto3
import boto3_acl
import boto3_iam
import boto3_policy
import boto3_sse
import boto3_lifecycle
import boto3_post
import boto3_sts
import boto3_tagging
import boto3_objectlock
import boto3_wire
import botocore
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

from boto3_versioning import versioning_suite

MiB = 1 << 20

passed = 0
failed = 0
skipped = 0


def run(desc, fn, *args):
    """Runs one check: fn raises (AssertionError or anything) to fail."""
    global passed, failed
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - every failure is reported, none stops the suite
        failed += 1
        print(f"FAIL {desc}", file=sys.stderr)
        for line in traceback.format_exc().rstrip().splitlines()[-12:]:
            print(f"     | {line}", file=sys.stderr)
        return False
    passed += 1
    print(f"ok   {desc}")
    return True


def skip(desc, why):
    global skipped
    skipped += 1
    print(f"skip {desc}: {why}")


def eq(got, want, what="value"):
    if got != want:
        g, w = repr(got), repr(want)
        raise AssertionError(f"{what}: got {g[:200]}, want {w[:200]}")


def client_error_code(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except ClientError as e:
        return e.response["Error"]["Code"]
    raise AssertionError("call succeeded, want an error")


# --- checksums computed here, independently of botocore -----------------------


def _table(poly, bits):
    mask = (1 << bits) - 1
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        t.append(c & mask)
    return t


_CRC32C = _table(0x82F63B78, 32)
_CRC64NVME = _table(0x9A6C9329AC4BC9B5, 64)


def _reflected_crc(table, bits, data):
    mask = (1 << bits) - 1
    c = mask
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ mask


def crc32c(data):
    return _reflected_crc(_CRC32C, 32, data)


def crc64nvme(data):
    return _reflected_crc(_CRC64NVME, 64, data)


assert crc32c(b"123456789") == 0xE3069283
assert crc64nvme(b"123456789") == 0xAE8B14860A799888


def b64(raw):
    return base64.b64encode(raw).decode()


def checksum(alg, data):
    """The base64 checksum S3 reports for data under alg."""
    if alg == "CRC32":
        return b64((zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big"))
    if alg == "CRC32C":
        return b64(crc32c(data).to_bytes(4, "big"))
    if alg == "CRC64NVME":
        return b64(crc64nvme(data).to_bytes(8, "big"))
    if alg == "SHA1":
        return b64(hashlib.sha1(data).digest())
    if alg == "SHA256":
        return b64(hashlib.sha256(data).digest())
    raise ValueError(alg)


def md5_hex(data):
    return hashlib.md5(data).hexdigest()


def multipart_etag(parts):
    return '"%s-%d"' % (hashlib.md5(b"".join(hashlib.md5(p).digest() for p in parts)).hexdigest(), len(parts))


def composite_crc32(parts):
    raw = b"".join(base64.b64decode(checksum("CRC32", p)) for p in parts)
    return "%s-%d" % (checksum("CRC32", raw), len(parts))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for blk in iter(lambda: f.read(MiB), b""):
            h.update(blk)
    return h.hexdigest()


def seeded(n, seed):
    """n deterministic pseudo-random bytes."""
    out = bytearray()
    block = hashlib.sha256(b"jog-%d" % seed).digest()
    while len(out) < n:
        block = hashlib.sha256(block).digest()
        out += block * 64
    return bytes(out[:n])


# --- what botocore puts on the wire --------------------------------------------


class Wire:
    """Records the headers of every request a client sends."""

    def __init__(self, client):
        self.reqs = []
        client.meta.events.register("before-send.s3", self._record)

    def _record(self, request, event_name=None, **_):
        op = (event_name or "").rsplit(".", 1)[-1]
        h = {k.lower(): v for k, v in request.headers.items()}
        if isinstance(h.get("authorization"), bytes):
            h["authorization"] = h["authorization"].decode()
        for k, v in list(h.items()):
            if isinstance(v, bytes):
                h[k] = v.decode("latin-1")
        self.reqs.append((op, h))

    def ops(self, op):
        return [h for o, h in self.reqs if o == op]

    def modes(self):
        """(op, payload mode, signing, checksum/trailer) tuples, deduplicated."""
        seen = []
        for op, h in self.reqs:
            auth = h.get("authorization", "")
            signing = auth.split(" ", 1)[0] if auth else "presigned/none"
            sha = h.get("x-amz-content-sha256", "-")
            if len(sha) == 64 and all(c in "0123456789abcdef" for c in sha):
                sha = "<payload sha256>"
            cks = sorted(k for k in h if k.startswith("x-amz-checksum-"))
            extra = []
            if h.get("content-encoding"):
                extra.append("content-encoding=" + h["content-encoding"])
            if h.get("x-amz-trailer"):
                extra.append("trailer=" + h["x-amz-trailer"])
            if cks:
                extra.append("header=" + ",".join(cks))
            if "content-md5" in h:
                extra.append("content-md5")
            m = (op, signing, sha, " ".join(extra))
            if m not in seen:
                seen.append(m)
        return seen


# --- the suite -----------------------------------------------------------------


def suite(endpoint, tmp):
    https = endpoint.startswith("https://")
    label = "https" if https else "http"
    common = dict(
        endpoint_url=endpoint,
        region_name=os.environ.get("JOG_REGION", "us-east-1"),
        aws_access_key_id=os.environ["JOG_ACCESS_KEY"],
        aws_secret_access_key=os.environ["JOG_SECRET_KEY"],
        verify=False if https else None,
    )
    cfg = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2, "mode": "standard"})
    s3 = boto3.client("s3", config=cfg, **common)
    wire = Wire(s3)
    bucket = f"boto3-{label}"
    t = lambda desc, fn, *a: run(f"[{label}] {desc}", fn, *a)  # noqa: E731

    # Buckets.
    t("create_bucket", lambda: s3.create_bucket(Bucket=bucket))
    t("head_bucket", lambda: s3.head_bucket(Bucket=bucket))
    t("list_buckets names the bucket", lambda: eq(bucket in [b["Name"] for b in s3.list_buckets()["Buckets"]], True))
    # us-east-1 answers 200 to re-creating a bucket you own, as S3 does there.
    t("create_bucket again answers 200 in us-east-1",
      lambda: eq(s3.create_bucket(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"], 200))

    # ListBuckets pages (MaxBuckets, ContinuationToken, Prefix, BucketRegion).
    lb = [f"{bucket}-lb-{i}" for i in range(5)]

    def list_buckets_pages():
        for b in lb:
            s3.create_bucket(Bucket=b)
        r = s3.list_buckets(MaxBuckets=2, Prefix=bucket + "-lb-")
        eq([b["Name"] for b in r["Buckets"]], lb[:2], "first page")
        eq(r.get("Prefix"), bucket + "-lb-", "Prefix echoed")
        names = [b["Name"] for b in r["Buckets"]]
        while "ContinuationToken" in r:
            r = s3.list_buckets(MaxBuckets=2, Prefix=bucket + "-lb-", ContinuationToken=r["ContinuationToken"])
            eq(len(r["Buckets"]) <= 2, True, "page size")
            names += [b["Name"] for b in r["Buckets"]]
        eq(names, lb, "names over all pages")
        pages = list(s3.get_paginator("list_buckets").paginate(
            Prefix=bucket + "-lb-", BucketRegion=os.environ.get("JOG_REGION", "us-east-1"),
            PaginationConfig={"PageSize": 3}))
        eq([[b["Name"] for b in p["Buckets"]] for p in pages], [lb[:3], lb[3:]], "paginator pages")
        eq({b.get("BucketRegion") for p in pages for b in p["Buckets"]}, {os.environ.get("JOG_REGION", "us-east-1")},
           "BucketRegion")
        r = s3.list_buckets()
        eq("ContinuationToken" in r or "Prefix" in r, False, "unpaged: no ContinuationToken, no Prefix")
        eq(set(lb) | {bucket} <= {b["Name"] for b in r["Buckets"]}, True, "unpaged: every bucket")
        for b in lb:
            s3.delete_bucket(Bucket=b)

    t("list_buckets with MaxBuckets, ContinuationToken, Prefix; list_buckets paginator", list_buckets_pages)

    # A small put_object with boto3's default checksum behaviour.
    small = b"hello from boto3 %s\n" % botocore.__version__.encode() * 50

    def put_small():
        r = s3.put_object(Bucket=bucket, Key="small.txt", Body=small, ContentType="text/plain",
                          Metadata={"color": "blue"})
        eq(r["ETag"], '"%s"' % md5_hex(small), "ETag")
        eq(r.get("ChecksumCRC32"), checksum("CRC32", small), "ChecksumCRC32 (boto3's default)")
        h = wire.ops("PutObject")[-1]
        eq(h.get("x-amz-sdk-checksum-algorithm"), "CRC32", "x-amz-sdk-checksum-algorithm")
        if https:
            eq(h.get("x-amz-content-sha256"), "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "payload mode over TLS")
            eq(h.get("content-encoding"), "aws-chunked", "Content-Encoding over TLS")
            eq(h.get("x-amz-trailer"), "x-amz-checksum-crc32", "x-amz-trailer over TLS")
            eq(h.get("x-amz-decoded-content-length"), str(len(small)), "x-amz-decoded-content-length")
        else:
            eq(h.get("x-amz-content-sha256"), hashlib.sha256(small).hexdigest(), "signed payload over HTTP")
            eq(h.get("x-amz-checksum-crc32"), checksum("CRC32", small), "x-amz-checksum-crc32 header over HTTP")

    t("put_object small (default CRC32; %s)" % ("aws-chunked trailer" if https else "header"), put_small)

    def get_small():
        r = s3.get_object(Bucket=bucket, Key="small.txt")
        eq(r["Body"].read(), small, "body")
        eq(r["ContentType"], "text/plain", "ContentType")
        eq(r["Metadata"], {"color": "blue"}, "Metadata")
        eq(r["ContentLength"], len(small), "ContentLength")

    t("get_object small reads back the same bytes", get_small)

    def get_small_checksum():
        r = s3.get_object(Bucket=bucket, Key="small.txt", ChecksumMode="ENABLED")
        # botocore wraps the body in a validating stream when the response
        # carries a checksum it can compute; reading it checks the CRC32.
        eq(type(r["Body"]).__name__, "StreamingChecksumBody", "botocore validates the body")
        eq(r["Body"].read(), small, "body")
        eq(r["ChecksumCRC32"], checksum("CRC32", small), "ChecksumCRC32")
        eq(r.get("ChecksumType"), "FULL_OBJECT", "ChecksumType")

    t("get_object ChecksumMode=ENABLED (botocore validates CRC32)", get_small_checksum)

    def head_small():
        r = s3.head_object(Bucket=bucket, Key="small.txt")
        eq(r["ContentLength"], len(small), "ContentLength")
        eq(r["ETag"], '"%s"' % md5_hex(small), "ETag")
        eq(r["Metadata"], {"color": "blue"}, "Metadata")

    t("head_object", head_small)
    t("head_object of a missing key is 404",
      lambda: eq(client_error_code(s3.head_object, Bucket=bucket, Key="no/such/key"), "404"))
    t("get_object of a missing key is NoSuchKey",
      lambda: eq(client_error_code(s3.get_object, Bucket=bucket, Key="no/such/key"), "NoSuchKey"))

    # Every checksum algorithm. botocore computes CRC32, SHA1 and SHA256
    # itself; CRC32C and CRC64NVME need awscrt, so without it the value
    # computed here is sent as a header.
    data = seeded(100_000, 1)
    have_crt = getattr(botocore.compat, "HAS_CRT", False)
    for alg in ["CRC32", "CRC32C", "SHA1", "SHA256", "CRC64NVME"]:
        def put_alg(alg=alg):
            key = "alg/" + alg
            if alg in ("CRC32C", "CRC64NVME") and not have_crt:
                r = s3.put_object(Bucket=bucket, Key=key, Body=data, **{"Checksum" + alg: checksum(alg, data)})
            else:
                r = s3.put_object(Bucket=bucket, Key=key, Body=data, ChecksumAlgorithm=alg)
            eq(r.get("Checksum" + alg), checksum(alg, data), "put response Checksum" + alg)
            g = s3.get_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
            eq(g["Body"].read(), data, "body")
            eq(g.get("Checksum" + alg), checksum(alg, data), "get response Checksum" + alg)
            a = s3.get_object_attributes(Bucket=bucket, Key=key, ObjectAttributes=["Checksum", "ObjectSize", "ETag"])
            eq(a["Checksum"].get("Checksum" + alg), checksum(alg, data), "GetObjectAttributes Checksum" + alg)
            eq(a["ObjectSize"], len(data), "ObjectSize")

        how = "computed by botocore" if alg not in ("CRC32C", "CRC64NVME") or have_crt else "precomputed header"
        t(f"put_object/get_object with {alg} ({how})", put_alg)

    def wrong_checksum():
        code = client_error_code(s3.put_object, Bucket=bucket, Key="wrong", Body=data,
                                 ChecksumSHA256=checksum("SHA256", b"not the data"))
        eq(code, "BadDigest", "error code")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="wrong"), "404", "object after a refused put")

    t("put_object with a wrong SHA256 is refused (BadDigest)", wrong_checksum)

    # A 40 MiB upload_file: multipart (5 parts of 8 MiB), in parallel.
    big_path = os.path.join(tmp, f"big-{label}.bin")
    big = seeded(40 * MiB, 2)
    with open(big_path, "wb") as f:
        f.write(big)
    parts = [big[i:i + 8 * MiB] for i in range(0, len(big), 8 * MiB)]
    tc = TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=8 * MiB)

    def upload_big():
        before = len(wire.ops("UploadPart"))
        s3.upload_file(big_path, bucket, "big.bin", Config=tc)
        eq(len(wire.ops("CreateMultipartUpload")) >= 1, True, "CreateMultipartUpload sent")
        ups = wire.ops("UploadPart")[before:]
        eq(len(ups), 5, "UploadPart requests")
        eq(len(wire.ops("CompleteMultipartUpload")) >= 1, True, "CompleteMultipartUpload sent")
        if https:
            eq({h.get("x-amz-content-sha256") for h in ups}, {"STREAMING-UNSIGNED-PAYLOAD-TRAILER"}, "UploadPart payload mode")

    t("upload_file 40 MiB (TransferConfig 8 MiB: 5 parts, parallel)", upload_big)

    def head_big():
        r = s3.head_object(Bucket=bucket, Key="big.bin", ChecksumMode="ENABLED")
        eq(r["ContentLength"], len(big), "ContentLength")
        eq(r["ETag"], multipart_etag(parts), "multipart ETag (MD5 of part MD5s)")
        typ = r.get("ChecksumType")
        if typ == "COMPOSITE":
            eq(r.get("ChecksumCRC32"), composite_crc32(parts), "composite ChecksumCRC32")
        else:
            eq(typ, "FULL_OBJECT", "ChecksumType")
            eq(r.get("ChecksumCRC32"), checksum("CRC32", big), "full-object ChecksumCRC32")

    t("head_object of the multipart object: ETag and CRC32 of the parts", head_big)

    def download_big():
        down = os.path.join(tmp, f"big-{label}.down")
        before = len(wire.ops("GetObject"))
        s3.download_file(bucket, "big.bin", down, Config=tc)
        eq(sha256_file(down), hashlib.sha256(big).hexdigest(), "sha256 of the download")
        gets = wire.ops("GetObject")[before:]
        eq(len(gets) > 1 and all("range" in h for h in gets), True, "download_file used ranged GETs")
        os.remove(down)

    t("download_file 40 MiB (parallel ranged GETs) has the same sha256", download_big)

    def get_big_checksum():
        r = s3.get_object(Bucket=bucket, Key="big.bin", ChecksumMode="ENABLED")
        eq(hashlib.sha256(r["Body"].read()).hexdigest(), hashlib.sha256(big).hexdigest(), "sha256")

    t("get_object ChecksumMode=ENABLED of the multipart object", get_big_checksum)

    def get_part():
        r = s3.get_object(Bucket=bucket, Key="big.bin", PartNumber=2)
        eq(r["Body"].read() == parts[1], True, "part 2 bytes")
        eq(r["PartsCount"], 5, "PartsCount")
        eq(r["ContentRange"], "bytes %d-%d/%d" % (8 * MiB, 16 * MiB - 1, len(big)), "ContentRange")
        h = s3.head_object(Bucket=bucket, Key="big.bin", PartNumber=5)
        eq(h["ContentLength"], len(parts[4]), "head part 5 ContentLength")

    t("get_object/head_object PartNumber", get_part)

    def attrs_big():
        a = s3.get_object_attributes(Bucket=bucket, Key="big.bin",
                                     ObjectAttributes=["ETag", "Checksum", "ObjectParts", "ObjectSize", "StorageClass"])
        eq(a["ObjectSize"], len(big), "ObjectSize")
        eq(a["ETag"], multipart_etag(parts).strip('"'), "ETag")
        eq(a["ObjectParts"]["TotalPartsCount"], 5, "TotalPartsCount")
        got = [p["Size"] for p in a["ObjectParts"].get("Parts", [])]
        if got:
            eq(got, [len(p) for p in parts], "part sizes")
        # Unlike HEAD/GET, S3 reports a composite checksum here without "-N".
        if a["Checksum"].get("ChecksumType") == "COMPOSITE":
            eq(a["Checksum"].get("ChecksumCRC32"), composite_crc32(parts).rsplit("-", 1)[0], "composite ChecksumCRC32")
            eq([p.get("ChecksumCRC32") for p in a["ObjectParts"]["Parts"]], [checksum("CRC32", p) for p in parts],
               "part ChecksumCRC32s")
        else:
            eq(a["Checksum"].get("ChecksumCRC32"), checksum("CRC32", big), "full-object ChecksumCRC32")

    t("get_object_attributes of the multipart object", attrs_big)

    # A non-seekable stream: s3transfer buffers it and goes multipart.
    stream_data = seeded(12 * MiB + 12345, 3)

    class Unseekable(io.RawIOBase):
        def __init__(self, b):
            self._b = io.BytesIO(b)

        def readable(self):
            return True

        def readinto(self, buf):
            return self._b.readinto(buf)

    def upload_stream():
        s3.upload_fileobj(io.BufferedReader(Unseekable(stream_data)), bucket, "stream.bin", Config=tc)
        r = s3.get_object(Bucket=bucket, Key="stream.bin")
        eq(r["Body"].read() == stream_data, True, "bytes read back")
        eq(r["ETag"], multipart_etag([stream_data[:8 * MiB], stream_data[8 * MiB:]]), "ETag of 2 parts")

    t("upload_fileobj of a non-seekable 12 MiB stream (multipart)", upload_stream)

    # copy_object and boto3's managed copy (UploadPartCopy above the threshold).
    def copy_small():
        r = s3.copy_object(Bucket=bucket, Key="copy.txt", CopySource={"Bucket": bucket, "Key": "small.txt"})
        eq(r["CopyObjectResult"]["ETag"], '"%s"' % md5_hex(small), "copy ETag")
        g = s3.get_object(Bucket=bucket, Key="copy.txt")
        eq(g["Body"].read(), small, "copied bytes")
        eq(g["Metadata"], {"color": "blue"}, "copied metadata")
        s3.copy_object(Bucket=bucket, Key="copy2.txt", CopySource=f"{bucket}/small.txt",
                       MetadataDirective="REPLACE", Metadata={"shape": "round"}, ContentType="application/x-test")
        g = s3.get_object(Bucket=bucket, Key="copy2.txt")
        eq(g["Body"].read(), small, "copied bytes (REPLACE)")
        eq((g["Metadata"], g["ContentType"]), ({"shape": "round"}, "application/x-test"), "replaced metadata")

    t("copy_object (COPY and REPLACE metadata)", copy_small)

    def managed_copy():
        before = len(wire.ops("UploadPartCopy"))
        s3.copy({"Bucket": bucket, "Key": "big.bin"}, bucket, "big-copy.bin", Config=tc)
        eq(len(wire.ops("UploadPartCopy")) - before, 5, "UploadPartCopy requests")
        r = s3.get_object(Bucket=bucket, Key="big-copy.bin")
        eq(hashlib.sha256(r["Body"].read()).hexdigest(), hashlib.sha256(big).hexdigest(), "sha256 of the copy")
        eq(r["ETag"], multipart_etag(parts), "ETag of the 5-part copy")

    t("managed copy of 40 MiB (5 x UploadPartCopy)", managed_copy)

    # Keys that need encoding.
    odd = "dir/ünï cødé+&=?#%~.txt"

    def odd_key():
        s3.put_object(Bucket=bucket, Key=odd, Body=b"odd")
        eq(s3.get_object(Bucket=bucket, Key=odd)["Body"].read(), b"odd", "body")
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="dir/")["Contents"]]
        eq(keys, [odd], "listed keys")
        s3.delete_object(Bucket=bucket, Key=odd)

    t("key with spaces, UTF-8 and reserved characters", odd_key)

    # Stored headers come back byte for byte; If-Match: * and conditional
    # deletes (IfMatchSize, IfMatchLastModifiedTime, per-object Size).
    def headers_verbatim():
        s3.put_object(Bucket=bucket, Key="verbatim", Body=b"v", ContentEncoding="deflate, GZIP",
                      CacheControl="no-cache, max-age=0", Metadata={"tags": "a, b,c"})
        h = s3.head_object(Bucket=bucket, Key="verbatim")
        eq(h["ContentEncoding"], "deflate, GZIP", "Content-Encoding")
        eq(h["CacheControl"], "no-cache, max-age=0", "Cache-Control")
        eq(h["Metadata"], {"tags": "a, b,c"}, "metadata")

    t("stored headers come back verbatim", headers_verbatim)

    def conditional():
        eq(client_error_code(s3.put_object, Bucket=bucket, Key="cond", Body=b"x", IfMatch="*"),
           "PreconditionFailed", "If-Match * on a missing key")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="cond"), "404", "nothing created")
        s3.put_object(Bucket=bucket, Key="cond", Body=b"first")
        s3.put_object(Bucket=bucket, Key="cond", Body=b"12345", IfMatch="*")
        h = s3.head_object(Bucket=bucket, Key="cond")
        eq(client_error_code(s3.delete_object, Bucket=bucket, Key="cond", IfMatchSize=4),
           "PreconditionFailed", "IfMatchSize mismatch")
        eq(client_error_code(s3.delete_object, Bucket=bucket, Key="cond",
                             IfMatchLastModifiedTime=h["LastModified"] + datetime.timedelta(seconds=1)),
           "PreconditionFailed", "IfMatchLastModifiedTime mismatch")
        r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "cond", "Size": 4}]})
        eq([e["Code"] for e in r.get("Errors", [])], ["PreconditionFailed"], "delete_objects Size mismatch")
        eq(s3.get_object(Bucket=bucket, Key="cond")["Body"].read(), b"12345", "kept after refusals")
        r = s3.delete_object(Bucket=bucket, Key="cond", IfMatchSize=5, IfMatchLastModifiedTime=h["LastModified"])
        eq(r["ResponseMetadata"]["HTTPStatusCode"], 204, "conditional delete")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="cond"), "404", "deleted")

    t("If-Match * and conditional deletes", conditional)
    # Listings of keys that need encoding. botocore asks for
    # encoding-type=url on every list_objects(_v2) call and decodes the
    # names with unquote_plus, so they must come back exactly as written.
    enc = ["enc/a b", "enc/a+b", "enc/100%", "enc/100%25", "enc/amp&lt;", "enc/q?x=1&y", "enc/hash#frag",
           "enc/tilde~star*", "enc/日本語/ファイル.txt", "enc/日本語/絵文字 😀", "enc/ctl\x01char", "enc/tab\there",
           "enc/nl\nline", "enc/sp ace/in dir", "enc/sp ace/z"]

    def put_enc():
        for k in enc:
            s3.put_object(Bucket=bucket, Key=k, Body=k.encode())
        for k in enc:
            eq(s3.get_object(Bucket=bucket, Key=k)["Body"].read(), k.encode(), f"body of {k!r}")

    t("put_object of %d keys needing encoding (space, + %% & ? #, UTF-8, emoji, control characters)" % len(enc),
      put_enc)

    def rolled(prefix, delim, after=""):
        items = set()
        for k in enc:
            if not k.startswith(prefix):
                continue
            i = k.find(delim, len(prefix)) if delim else -1
            items.add(k[:i + len(delim)] if i >= 0 else k)
        return sorted(x for x in items if x > after)

    def list_v2_enc():
        r = s3.list_objects_v2(Bucket=bucket, Prefix="enc/")
        eq(r.get("EncodingType"), "url", "EncodingType (botocore asked for url)")
        eq([o["Key"] for o in r["Contents"]], sorted(enc), "keys")
        r = s3.list_objects_v2(Bucket=bucket, Prefix="enc/", Delimiter="/")
        eq((r["Prefix"], r["Delimiter"]), ("enc/", "/"), "Prefix and Delimiter")
        eq([o["Key"] for o in r["Contents"]], [k for k in rolled("enc/", "/") if not k.endswith("/")], "keys with a delimiter")
        eq([p["Prefix"] for p in r["CommonPrefixes"]], ["enc/sp ace/", "enc/日本語/"], "common prefixes")
        r = s3.list_objects_v2(Bucket=bucket, Prefix="enc/sp ace/", StartAfter="enc/sp ace/in dir", Delimiter=" ")
        eq((r["Prefix"], r["StartAfter"], r["Delimiter"]), ("enc/sp ace/", "enc/sp ace/in dir", " "),
           "Prefix, StartAfter and Delimiter")
        eq([o["Key"] for o in r["Contents"]], ["enc/sp ace/z"], "keys after StartAfter")
        r = s3.list_objects_v2(Bucket=bucket, Prefix="enc/a", Delimiter="+")
        eq([p["Prefix"] for p in r.get("CommonPrefixes", [])], ["enc/a+"], "common prefix ending in +")
        eq([o["Key"] for o in r["Contents"]], ["enc/a b", "enc/amp&lt;"], "keys beside it")

    t("list_objects_v2: keys, Prefix, Delimiter, StartAfter and CommonPrefixes come back exactly", list_v2_enc)

    def list_v1_enc():
        r = s3.list_objects(Bucket=bucket, Prefix="enc/", Delimiter="/", Marker="enc/a+b")
        eq(r.get("EncodingType"), "url", "EncodingType (botocore asked for url)")
        # "/" is not encoded, so Prefix reads back as sent although botocore
        # does not decode V1's Prefix.
        eq((r["Prefix"], r["Delimiter"], r["Marker"]), ("enc/", "/", "enc/a+b"), "Prefix, Delimiter and Marker")
        eq([o["Key"] for o in r["Contents"]], [k for k in rolled("enc/", "/", "enc/a+b") if not k.endswith("/")], "keys")
        eq([p["Prefix"] for p in r["CommonPrefixes"]], ["enc/sp ace/", "enc/日本語/"], "common prefixes")
        r = s3.list_objects(Bucket=bucket, Prefix="enc/sp ace/", Delimiter=" ", Marker="enc/sp ace/in dir")
        eq((r["Delimiter"], r["Marker"]), (" ", "enc/sp ace/in dir"), "Delimiter and Marker")
        # botocore leaves V1's Prefix as S3 sent it (encoded): as against AWS.
        eq(urllib.parse.unquote_plus(r["Prefix"]), "enc/sp ace/", "Prefix, decoded")
        eq([o["Key"] for o in r["Contents"]], ["enc/sp ace/z"], "keys after Marker")
        r = s3.list_objects(Bucket=bucket, Prefix="enc/", MaxKeys=3)
        eq(r["IsTruncated"], True, "truncated")
        eq(r["NextMarker"], sorted(enc)[2], "NextMarker")

    t("list_objects (V1): keys, Delimiter, Marker, NextMarker and CommonPrefixes come back exactly", list_v1_enc)

    def paginate_enc():
        for op in ["list_objects", "list_objects_v2"]:
            for delim in ["", "/", " "]:
                kw = {"Delimiter": delim} if delim else {}
                got = []
                for p in s3.get_paginator(op).paginate(Bucket=bucket, Prefix="enc/", PaginationConfig={"PageSize": 2},
                                                       **kw):
                    got += [o["Key"] for o in p.get("Contents", [])] + [c["Prefix"] for c in p.get("CommonPrefixes", [])]
                eq(sorted(got), rolled("enc/", delim), f"{op} delimiter {delim!r}, pages of 2")

    t("list_objects and list_objects_v2 paginators (pages of 2) walk the encoded keys", paginate_enc)

    # One by one: a DeleteObjects document cannot carry "\x01" (not XML 1.0).
    def delete_enc():
        for k in enc:
            s3.delete_object(Bucket=bucket, Key=k)
        eq(s3.list_objects_v2(Bucket=bucket, Prefix="enc/")["KeyCount"], 0, "keys left")

    t("delete_object of each key needing encoding", delete_enc)

    # list_objects_v2 paginator and delete_objects.
    keys = ["list/k%02d" % i for i in range(23)] + ["list/sub/x", "list/sub/y"]

    def put_many():
        for k in keys:
            s3.put_object(Bucket=bucket, Key=k, Body=k.encode())

    t("put_object x%d" % len(keys), put_many)

    def paginate():
        pages = list(s3.get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix="list/", PaginationConfig={"PageSize": 5}))
        eq(len(pages), 5, "pages")
        eq([o["Key"] for p in pages for o in p.get("Contents", [])], sorted(keys), "keys over all pages")
        eq(all(p["KeyCount"] <= 5 for p in pages), True, "page sizes")
        pages = list(s3.get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix="list/", Delimiter="/", PaginationConfig={"PageSize": 10}))
        eq([o["Key"] for p in pages for o in p.get("Contents", [])], sorted(keys)[:23], "keys with delimiter")
        eq([c["Prefix"] for p in pages for c in p.get("CommonPrefixes", [])], ["list/sub/"], "common prefixes")

    t("list_objects_v2 paginator (PageSize 5, and with a delimiter)", paginate)

    def delete_many():
        objs = [{"Key": k} for k in keys] + [{"Key": "list/never-existed"}]
        r = s3.delete_objects(Bucket=bucket, Delete={"Objects": objs})
        eq(len(r.get("Deleted", [])), len(objs), "Deleted")
        eq(r.get("Errors", []), [], "Errors")
        eq(s3.list_objects_v2(Bucket=bucket, Prefix="list/")["KeyCount"], 0, "keys left")
        h = wire.ops("DeleteObjects")[-1]
        eq(any(k.startswith("x-amz-checksum-") or k == "content-md5" for k in h), True, "integrity header sent")

    t("delete_objects of %d keys (one missing)" % (len(keys) + 1), delete_many)

    # An aborted multipart upload.
    def abort_upload():
        up = s3.create_multipart_upload(Bucket=bucket, Key="aborted")["UploadId"]
        part = seeded(5 * MiB, 4)
        r = s3.upload_part(Bucket=bucket, Key="aborted", UploadId=up, PartNumber=1, Body=part)
        eq(r["ETag"], '"%s"' % md5_hex(part), "part ETag")
        ups = s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
        eq([(u["Key"], u["UploadId"]) for u in ups], [("aborted", up)], "listed uploads")
        ps = s3.list_parts(Bucket=bucket, Key="aborted", UploadId=up)["Parts"]
        eq([(p["PartNumber"], p["Size"], p["ETag"]) for p in ps], [(1, len(part), r["ETag"])], "listed parts")
        s3.abort_multipart_upload(Bucket=bucket, Key="aborted", UploadId=up)
        eq(s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []), [], "uploads after abort")
        eq(client_error_code(s3.upload_part, Bucket=bucket, Key="aborted", UploadId=up, PartNumber=2, Body=b"x"),
           "NoSuchUpload", "upload_part after abort")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="aborted"), "404", "object after abort")

    t("create_multipart_upload + upload_part + abort; list_multipart_uploads empty", abort_upload)

    # A low-level FULL_OBJECT CRC32 multipart upload: botocore validates the
    # whole-object checksum on GET.
    def full_object():
        p1, p2 = seeded(5 * MiB, 5), seeded(MiB + 7, 6)
        up = s3.create_multipart_upload(Bucket=bucket, Key="full", ChecksumAlgorithm="CRC32",
                                        ChecksumType="FULL_OBJECT")["UploadId"]
        r1 = s3.upload_part(Bucket=bucket, Key="full", UploadId=up, PartNumber=1, Body=p1, ChecksumAlgorithm="CRC32")
        r2 = s3.upload_part(Bucket=bucket, Key="full", UploadId=up, PartNumber=2, Body=p2, ChecksumAlgorithm="CRC32")
        eq((r1.get("ChecksumCRC32"), r2.get("ChecksumCRC32")), (checksum("CRC32", p1), checksum("CRC32", p2)), "part CRC32s")
        c = s3.complete_multipart_upload(
            Bucket=bucket, Key="full", UploadId=up, ChecksumType="FULL_OBJECT", ChecksumCRC32=checksum("CRC32", p1 + p2),
            MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": r1["ETag"], "ChecksumCRC32": r1["ChecksumCRC32"]},
                                       {"PartNumber": 2, "ETag": r2["ETag"], "ChecksumCRC32": r2["ChecksumCRC32"]}]})
        eq(c.get("ChecksumCRC32"), checksum("CRC32", p1 + p2), "complete ChecksumCRC32")
        g = s3.get_object(Bucket=bucket, Key="full", ChecksumMode="ENABLED")
        eq(type(g["Body"]).__name__, "StreamingChecksumBody", "botocore validates the body")
        eq(g["Body"].read() == p1 + p2, True, "bytes")
        eq(g.get("ChecksumType"), "FULL_OBJECT", "ChecksumType")

    t("multipart with ChecksumType=FULL_OBJECT CRC32 (validated on GET)", full_object)

    boto3_wire.checks(s3, bucket, t, eq, client_error_code, seeded, MiB)

    # Presigned URLs, fetched without botocore.
    ctx = ssl._create_unverified_context() if https else None  # noqa: S323 - self-signed test certificate

    def presigned(client, marker):
        url = client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "small.txt"}, ExpiresIn=300)
        eq(marker in url, True, f"{marker} in the URL")
        with urllib.request.urlopen(url, context=ctx) as resp:
            eq(resp.read(), small, "presigned GET body")
        url = client.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "presigned-put"},
                                            ExpiresIn=300)
        # http.client, not urllib: urllib adds a Content-Type, which SigV2
        # signs and the URL was not signed with.
        u = urllib.parse.urlsplit(url)
        conn = (http.client.HTTPSConnection(u.netloc, context=ctx) if https else http.client.HTTPConnection(u.netloc))
        conn.request("PUT", u.path + "?" + u.query, body=data)
        resp = conn.getresponse()
        eq((resp.status, resp.read()[:300]), (200, b""), "presigned PUT status")
        conn.close()
        eq(s3.get_object(Bucket=bucket, Key="presigned-put")["Body"].read(), data, "presigned PUT bytes")
        s3.delete_object(Bucket=bucket, Key="presigned-put")

    # boto3's default presigner for a custom endpoint in us-east-1 still
    # signs with SigV2 (AWSAccessKeyId/Signature/Expires); s3v4 is opt-in.
    t("presigned GET and PUT, boto3's default presigner (SigV2 query)", presigned, s3, "Signature=")
    s3v4 = boto3.client("s3", config=Config(signature_version="s3v4", s3={"addressing_style": "path"}), **common)
    t("presigned GET and PUT, signature_version=s3v4 (SigV4 query)", presigned, s3v4, "X-Amz-Signature=")

    # The same client with SigV2 ("s3" signature version).
    s3v2 = boto3.client("s3", config=Config(signature_version="s3", s3={"addressing_style": "path"}), **common)
    wire2 = Wire(s3v2)

    def sigv2():
        body = seeded(300_000, 7)
        s3v2.put_object(Bucket=bucket, Key="v2.bin", Body=body)
        eq(wire2.ops("PutObject")[-1]["authorization"].startswith("AWS " + os.environ["JOG_ACCESS_KEY"] + ":"), True,
           "SigV2 Authorization header")
        eq(s3v2.get_object(Bucket=bucket, Key="v2.bin")["Body"].read(), body, "bytes")
        eq("v2.bin" in [o["Key"] for o in s3v2.list_objects(Bucket=bucket)["Contents"]], True, "listed")
        url = s3v2.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "v2.bin"}, ExpiresIn=300)
        eq("Signature=" in url and "AWSAccessKeyId=" in url, True, "SigV2 query signature")
        with urllib.request.urlopen(url, context=ctx) as resp:
            eq(resp.read(), body, "presigned v2 GET body")
        s3v2.delete_object(Bucket=bucket, Key="v2.bin")

    t("SigV2 client: put, get, list, presigned GET", sigv2)

    def wrong_secret():
        bad = boto3.client("s3", config=cfg, **dict(common, aws_secret_access_key="wrong-secret-key-000"))
        eq(client_error_code(bad.list_objects_v2, Bucket=bucket), "SignatureDoesNotMatch", "error code")

    t("a wrong secret key is SignatureDoesNotMatch", wrong_secret)

    boto3_lifecycle.checks(s3, bucket, t, eq, client_error_code)
    boto3_tagging.checks(s3, bucket, t, eq, client_error_code)
    boto3_post.checks(s3, bucket, t, eq, client_error_code)
    boto3_iam.checks(common, label, t, eq, client_error_code)
    boto3_policy.checks(s3, common, bucket, label, t, eq, client_error_code)
    boto3_sts.checks(common, label, t, eq, client_error_code)
    boto3_acl.checks(common, label, t, eq, client_error_code)
    versioning_suite(s3, label, t, eq, client_error_code)
    boto3_objectlock.objectlock_suite(s3, label, t, eq, client_error_code)
    boto3_sse.checks(common, label, t, eq, client_error_code)

    # Empty and remove the bucket.
    def cleanup():
        for p in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            objs = [{"Key": o["Key"]} for o in p.get("Contents", [])]
            if objs:
                s3.delete_objects(Bucket=bucket, Delete={"Objects": objs})
        s3.delete_bucket(Bucket=bucket)
        eq(bucket in [b["Name"] for b in s3.list_buckets()["Buckets"]], False, "bucket gone")

    t("empty and delete_bucket", cleanup)
    os.remove(big_path)

    print(f"[{label}] on the wire:")
    for op, signing, sha, extra in wire.modes() + wire2.modes():
        print(f"       {op:24} {signing:18} x-amz-content-sha256={sha} {extra}".rstrip())


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore", message="Unverified HTTPS request")
    print(f"boto3 {boto3.__version__}, botocore {botocore.__version__}, "
          f"awscrt {'yes' if getattr(botocore.compat, 'HAS_CRT', False) else 'no'}")
    tmp = os.environ.get("JOG_TMP") or tempfile.mkdtemp(prefix="jog-boto3-")
    for endpoint in sys.argv[1:]:
        suite(endpoint, tmp)
    if skipped:
        print(f"{passed} passed, {failed} failed, {skipped} skipped")
    else:
        print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
