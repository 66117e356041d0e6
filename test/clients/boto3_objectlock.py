"""Object lock checks of boto3_test.py: a bucket created with object lock,
its default retention, retention and legal hold per version, and the
refusals to remove a locked version (each followed by a read proving the
version is still there)."""

import datetime


def objectlock_suite(s3, label, t, eq, client_error_code):
    bucket = f"boto3-lock-{label}"
    hour = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(hours=1)
    v = {}

    def create():
        s3.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
        eq(s3.get_bucket_versioning(Bucket=bucket).get("Status"), "Enabled", "versioning")
        eq(client_error_code(s3.put_bucket_versioning, Bucket=bucket,
                             VersioningConfiguration={"Status": "Suspended"}), "InvalidBucketState", "suspend")
        eq(s3.get_object_lock_configuration(Bucket=bucket)["ObjectLockConfiguration"],
           {"ObjectLockEnabled": "Enabled"}, "configuration")

    t("object lock: create_bucket ObjectLockEnabledForBucket, versioning Enabled for good", create)

    def versions():
        v["comp"] = s3.put_object(Bucket=bucket, Key="comp", Body=b"c", ObjectLockMode="COMPLIANCE",
                                  ObjectLockRetainUntilDate=hour)["VersionId"]
        v["gov"] = s3.put_object(Bucket=bucket, Key="gov", Body=b"g", ObjectLockMode="GOVERNANCE",
                                 ObjectLockRetainUntilDate=hour)["VersionId"]
        v["hold"] = s3.put_object(Bucket=bucket, Key="hold", Body=b"h", ObjectLockLegalHoldStatus="ON")["VersionId"]
        h = s3.head_object(Bucket=bucket, Key="comp")
        eq((h.get("ObjectLockMode"), h.get("ObjectLockRetainUntilDate")), ("COMPLIANCE", hour), "head_object lock")
        r = s3.get_object_retention(Bucket=bucket, Key="gov", VersionId=v["gov"])["Retention"]
        eq((r["Mode"], r["RetainUntilDate"]), ("GOVERNANCE", hour), "get_object_retention")
        eq(s3.get_object_legal_hold(Bucket=bucket, Key="hold")["LegalHold"]["Status"], "ON", "get_object_legal_hold")
        eq(client_error_code(s3.get_object_legal_hold, Bucket=bucket, Key="comp"), "NoSuchObjectLockConfiguration",
           "get_object_legal_hold of a version that never had one")
        eq(h.get("ObjectLockLegalHoldStatus"), None, "no legal hold header for a version that never had one")

    t("object lock: put_object with lock headers, head_object, get_object_retention/legal_hold", versions)

    def refused():
        for key, bypass in [("comp", False), ("comp", True), ("gov", False), ("hold", True)]:
            kw = {"BypassGovernanceRetention": True} if bypass else {}
            eq(client_error_code(s3.delete_object, Bucket=bucket, Key=key, VersionId=v[key], **kw),
               "AccessDenied", f"delete {key} bypass={bypass}")
            eq(s3.head_object(Bucket=bucket, Key=key, VersionId=v[key])["VersionId"], v[key], f"{key} still there")
        r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "comp", "VersionId": v["comp"]}]})
        eq([e["Code"] for e in r.get("Errors", [])], ["AccessDenied"], "delete_objects")
        eq(client_error_code(s3.put_object_retention, Bucket=bucket, Key="comp", VersionId=v["comp"],
                             BypassGovernanceRetention=True,
                             Retention={"Mode": "COMPLIANCE", "RetainUntilDate": hour - datetime.timedelta(minutes=1)}),
           "AccessDenied", "shorten COMPLIANCE")
        eq(s3.get_object_retention(Bucket=bucket, Key="comp")["Retention"]["RetainUntilDate"], hour, "unchanged")
        eq(client_error_code(s3.delete_bucket, Bucket=bucket), "BucketNotEmpty", "delete_bucket")

    t("object lock: locked versions refuse delete_object, delete_objects, shortening, delete_bucket", refused)

    def released():
        s3.delete_object(Bucket=bucket, Key="gov", VersionId=v["gov"], BypassGovernanceRetention=True)
        s3.put_object_legal_hold(Bucket=bucket, Key="hold", VersionId=v["hold"], LegalHold={"Status": "OFF"})
        eq(s3.get_object_legal_hold(Bucket=bucket, Key="hold", VersionId=v["hold"])["LegalHold"]["Status"], "OFF",
           "a released legal hold is OFF")
        s3.delete_object(Bucket=bucket, Key="hold", VersionId=v["hold"])
        eq(s3.delete_object(Bucket=bucket, Key="comp").get("DeleteMarker"), True, "a delete marker is allowed")
        s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={
            "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1}}})
        d = s3.put_object(Bucket=bucket, Key="dflt", Body=b"d")["VersionId"]
        eq(s3.head_object(Bucket=bucket, Key="dflt").get("ObjectLockMode"), "GOVERNANCE", "default retention")
        s3.delete_object(Bucket=bucket, Key="dflt", VersionId=d, BypassGovernanceRetention=True)

    t("object lock: bypass GOVERNANCE, release a legal hold, default retention", released)

    def multipart():
        # Lock headers on create_multipart_upload: kept with the upload and
        # set on the version its completion creates (boto3 sends a CRC32
        # with each part, which a locked upload needs).
        up = s3.create_multipart_upload(Bucket=bucket, Key="mp", ObjectLockMode="GOVERNANCE",
                                        ObjectLockRetainUntilDate=hour, ChecksumAlgorithm="CRC32")
        p = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up["UploadId"], PartNumber=1, Body=b"m",
                           ChecksumAlgorithm="CRC32")
        mv = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=up["UploadId"], MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": p["ETag"], "ChecksumCRC32": p["ChecksumCRC32"]}]})["VersionId"]
        h = s3.head_object(Bucket=bucket, Key="mp", VersionId=mv)
        eq((h.get("ObjectLockMode"), h.get("ObjectLockRetainUntilDate")), ("GOVERNANCE", hour), "multipart lock")
        eq(client_error_code(s3.delete_object, Bucket=bucket, Key="mp", VersionId=mv), "AccessDenied",
           "delete a locked multipart version")
        eq(s3.head_object(Bucket=bucket, Key="mp", VersionId=mv)["VersionId"], mv, "mp still there")
        s3.delete_object(Bucket=bucket, Key="mp", VersionId=mv, BypassGovernanceRetention=True)
        eq(client_error_code(s3.create_multipart_upload, Bucket=bucket, Key="mp", ObjectLockMode="GOVERNANCE",
                             ObjectLockRetainUntilDate=hour - datetime.timedelta(hours=2)),
           "InvalidArgument", "a retain-until date in the past")

    t("object lock: create_multipart_upload with lock headers, the completed version is locked", multipart)
