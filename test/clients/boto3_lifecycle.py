"""boto3 checks of bucket lifecycle configuration, run by boto3_test.py."""

import datetime


def checks(s3, bucket, t, eq, client_error_code):
    rules = [
        {"ID": "tmp", "Filter": {"Prefix": "tmp/"}, "Status": "Enabled", "Expiration": {"Days": 3}},
        {"ID": "uploads", "Filter": {}, "Status": "Enabled",
         "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 2}},
        {"ID": "logs", "Status": "Disabled",
         "Filter": {"And": {"Prefix": "logs/", "ObjectSizeGreaterThan": 10, "ObjectSizeLessThan": 1000}},
         "Expiration": {"Date": datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc)},
         "NoncurrentVersionExpiration": {"NoncurrentDays": 7, "NewerNoncurrentVersions": 2}},
    ]

    def round_trip():
        eq(client_error_code(s3.get_bucket_lifecycle_configuration, Bucket=bucket),
           "NoSuchLifecycleConfiguration", "before any")
        s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
        eq(s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"], rules, "rules read back")

    t("put/get_bucket_lifecycle_configuration round trip", round_trip)

    def expiration_header():
        r = s3.put_object(Bucket=bucket, Key="tmp/lc", Body=b"short-lived")
        eq('rule-id="tmp"' in r.get("Expiration", ""), True, "put_object Expiration " + r.get("Expiration", ""))
        h = s3.head_object(Bucket=bucket, Key="tmp/lc")
        eq(h.get("Expiration"), r.get("Expiration"), "head_object Expiration")
        eq("Expiration" in s3.head_object(Bucket=bucket, Key="small.txt"), False, "no rule, no header")
        s3.delete_object(Bucket=bucket, Key="tmp/lc")

    t("x-amz-expiration on put_object and head_object", expiration_header)

    def refused():
        glacier = dict(rules[0], Transitions=[{"Days": 30, "StorageClass": "GLACIER"}])
        eq(client_error_code(s3.put_bucket_lifecycle_configuration, Bucket=bucket,
                             LifecycleConfiguration={"Rules": [glacier]}), "NotImplemented", "a transition")
        eq(client_error_code(s3.put_bucket_lifecycle_configuration, Bucket=bucket,
                             LifecycleConfiguration={"Rules": [rules[0], rules[0]]}), "InvalidArgument", "duplicate IDs")
        eq(s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"], rules, "rules kept")
        s3.delete_bucket_lifecycle(Bucket=bucket)
        eq(client_error_code(s3.get_bucket_lifecycle_configuration, Bucket=bucket),
           "NoSuchLifecycleConfiguration", "after delete_bucket_lifecycle")

    t("lifecycle refusals (transition, duplicate IDs) keep the rules; delete_bucket_lifecycle", refused)
