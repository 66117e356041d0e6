"""boto3 checks of wire fidelity, run by boto3_test.py: a retried
CompleteMultipartUpload, and the requests JOG refuses rather than pretend
to carry out."""


def checks(s3, bucket, t, eq, client_error_code, seeded, MiB):
    # A completion retried after its answer was lost gets the same answer
    # while the object is the one the upload made; then NoSuchUpload.
    def complete_retried():
        p1 = seeded(5 * MiB, 7)
        up = s3.create_multipart_upload(Bucket=bucket, Key="retried")["UploadId"]
        r1 = s3.upload_part(Bucket=bucket, Key="retried", UploadId=up, PartNumber=1, Body=p1)
        parts = {"Parts": [{"PartNumber": 1, "ETag": r1["ETag"]}]}
        first = s3.complete_multipart_upload(Bucket=bucket, Key="retried", UploadId=up, MultipartUpload=parts)
        again = s3.complete_multipart_upload(Bucket=bucket, Key="retried", UploadId=up, MultipartUpload=parts)
        eq(again["ETag"], first["ETag"], "retried ETag")
        eq(s3.get_object(Bucket=bucket, Key="retried")["Body"].read() == p1, True, "bytes")
        s3.put_object(Bucket=bucket, Key="retried", Body=b"newer")
        eq(client_error_code(s3.complete_multipart_upload, Bucket=bucket, Key="retried", UploadId=up,
                             MultipartUpload=parts), "NoSuchUpload", "after the key was overwritten")
        s3.delete_object(Bucket=bucket, Key="retried")

    t("complete_multipart_upload retried: same answer, then NoSuchUpload once replaced", complete_retried)

    # What JOG cannot carry out is refused, and nothing is stored.
    def refusals():
        for kw, code in [({"ACL": "public-read"}, "AccessControlListNotSupported"),
                         ({"ObjectLockLegalHoldStatus": "ON"}, "InvalidRequest")]:
            eq(client_error_code(s3.put_object, Bucket=bucket, Key="refused", Body=b"secret", **kw), code, str(kw))
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="refused"), "404", "nothing stored")
        eq(client_error_code(s3.create_multipart_upload, Bucket=bucket, Key="refused", ObjectLockLegalHoldStatus="ON"),
           "InvalidRequest", "lock headers on create_multipart_upload")
        s3.put_object(Bucket=bucket, Key="private", Body=b"p", ACL="private")
        s3.delete_object(Bucket=bucket, Key="private")

    t("public ACLs and object lock (on a bucket without it) are refused; the private ACL is accepted", refusals)

    # Configurations JOG has none of: their reads answer the empty state as
    # S3 does for a bucket without one; setting one is refused.
    def empty_config_reads():
        for fn, code in [(s3.get_bucket_encryption, "ServerSideEncryptionConfigurationNotFoundError"),
                         (s3.get_bucket_website, "NoSuchWebsiteConfiguration"),
                         (s3.get_bucket_replication, "ReplicationConfigurationNotFoundError")]:
            eq(client_error_code(fn, Bucket=bucket), code, fn.__name__)
        for fn in [s3.get_bucket_analytics_configuration, s3.get_bucket_inventory_configuration,
                   s3.get_bucket_metrics_configuration, s3.get_bucket_intelligent_tiering_configuration]:
            eq(client_error_code(fn, Bucket=bucket, Id="none"), "NoSuchConfiguration", fn.__name__)
        eq(s3.get_bucket_accelerate_configuration(Bucket=bucket).get("Status"), None, "accelerate never set")
        eq(s3.get_bucket_request_payment(Bucket=bucket)["Payer"], "BucketOwner", "request payment")
        notif = s3.get_bucket_notification_configuration(Bucket=bucket)
        eq([k for k in notif if k != "ResponseMetadata"], [], "no notifications")
        for fn, items in [(s3.list_bucket_analytics_configurations, "AnalyticsConfigurationList"),
                          (s3.list_bucket_inventory_configurations, "InventoryConfigurationList"),
                          (s3.list_bucket_metrics_configurations, "MetricsConfigurationList"),
                          (s3.list_bucket_intelligent_tiering_configurations, "IntelligentTieringConfigurationList")]:
            out = fn(Bucket=bucket)
            eq((out["IsTruncated"], out.get(items)), (False, None), fn.__name__)
        eq(client_error_code(s3.put_bucket_request_payment, Bucket=bucket,
                             RequestPaymentConfiguration={"Payer": "Requester"}), "NotImplemented", "put request payment")
        eq(s3.get_bucket_request_payment(Bucket=bucket)["Payer"], "BucketOwner", "request payment unchanged")
        eq(client_error_code(s3.get_bucket_encryption, Bucket=bucket + "-missing"), "NoSuchBucket", "missing bucket")

    t("bucket configurations JOG has none of read as empty; setting one is refused (501)", empty_config_reads)
