"""Versioning checks of boto3_test.py (ADR 0012): put_bucket_versioning,
versions and delete markers, the list_object_versions paginator."""


def versioning_suite(s3, label, t, eq, client_error_code):
    bucket = f"boto3-versions-{label}"
    t("versioning: create_bucket", lambda: s3.create_bucket(Bucket=bucket))
    ids = {}

    def enable():
        eq(s3.get_bucket_versioning(Bucket=bucket).get("Status"), None, "status before")
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
        eq(s3.get_bucket_versioning(Bucket=bucket).get("Status"), "Enabled", "status")

    t("versioning: put_bucket_versioning Enabled", enable)

    def versions():
        for i in range(3):
            for k in ("a", "b/c"):
                ids.setdefault(k, []).append(s3.put_object(Bucket=bucket, Key=k, Body=f"{k}{i}".encode())["VersionId"])
        eq(len(set(ids["a"] + ids["b/c"])), 6, "distinct version IDs")
        body = s3.get_object(Bucket=bucket, Key="a", VersionId=ids["a"][0])["Body"].read()
        eq(body, b"a0", "oldest version of a")

    t("versioning: put_object x6 makes versions, get_object by VersionId", versions)

    def markers():
        r = s3.delete_object(Bucket=bucket, Key="a")
        eq(r.get("DeleteMarker"), True, "DeleteMarker")
        ids["a-marker"] = r["VersionId"]
        eq(client_error_code(s3.get_object, Bucket=bucket, Key="a"), "NoSuchKey", "GET under a marker")
        eq(client_error_code(s3.get_object, Bucket=bucket, Key="a", VersionId=r["VersionId"]), "MethodNotAllowed",
           "GET of a marker")
        eq([o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])], ["b/c"], "live keys")

    t("versioning: delete_object writes a delete marker", markers)

    def paginate():
        pages = list(s3.get_paginator("list_object_versions").paginate(
            Bucket=bucket, PaginationConfig={"PageSize": 2}))
        # botocore splits each page into Versions and DeleteMarkers, so
        # only the set is compared (the order is checked in Go, on the XML).
        got = []
        for p in pages:
            got += [(v["Key"], v["VersionId"], False, v["IsLatest"]) for v in p.get("Versions", [])]
            got += [(m["Key"], m["VersionId"], True, m["IsLatest"]) for m in p.get("DeleteMarkers", [])]
        want = [("a", ids["a-marker"], True, True)] + [("a", v, False, False) for v in reversed(ids["a"])]
        want += [("b/c", v, False, i == 0) for i, v in enumerate(reversed(ids["b/c"]))]
        eq(sorted(got), sorted(want), "versions over all pages")
        eq(len(pages), 4, "pages")

    t("versioning: list_object_versions paginator (PageSize 2), delete markers", paginate)

    def cleanup():
        for p in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
            objs = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in p.get("Versions", []) + p.get("DeleteMarkers", [])]
            if objs:
                r = s3.delete_objects(Bucket=bucket, Delete={"Objects": objs})
                eq(r.get("Errors", []), [], "Errors")
        eq(s3.list_object_versions(Bucket=bucket).get("Versions", []), [], "versions left")
        s3.delete_bucket(Bucket=bucket)

    t("versioning: delete_objects of every version, delete_bucket", cleanup)
