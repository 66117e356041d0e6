"""boto3 checks of object and bucket tagging, run by boto3_test.py."""


def checks(s3, bucket, t, eq, client_error_code):
    def object_tags():
        s3.put_object(Bucket=bucket, Key="tagged", Body=b"t", Tagging="team=data%20eng&tmp=")
        eq(sorted((x["Key"], x["Value"]) for x in s3.get_object_tagging(Bucket=bucket, Key="tagged")["TagSet"]),
           [("team", "data eng"), ("tmp", "")], "x-amz-tagging on put_object")
        eq(s3.get_object(Bucket=bucket, Key="tagged")["TagCount"], 2, "x-amz-tagging-count on GET")
        s3.put_object_tagging(Bucket=bucket, Key="tagged", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
        eq(s3.get_object_tagging(Bucket=bucket, Key="tagged")["TagSet"], [{"Key": "k", "Value": "v"}], "replaced")
        eq(client_error_code(s3.put_object_tagging, Bucket=bucket, Key="tagged",
                             Tagging={"TagSet": [{"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"}]}),
           "InvalidTag", "duplicate keys")
        eq(client_error_code(s3.put_object_tagging, Bucket=bucket, Key="tagged",
                             Tagging={"TagSet": [{"Key": "k%d" % i, "Value": "v"} for i in range(11)]}),
           "BadRequest", "11 tags")
        eq(s3.get_object_tagging(Bucket=bucket, Key="tagged")["TagSet"], [{"Key": "k", "Value": "v"}],
           "unchanged by refusals")
        s3.copy_object(Bucket=bucket, Key="tagged-copy", CopySource={"Bucket": bucket, "Key": "tagged"},
                       TaggingDirective="REPLACE", Tagging="copy=1")
        eq(s3.get_object_tagging(Bucket=bucket, Key="tagged-copy")["TagSet"], [{"Key": "copy", "Value": "1"}],
           "copy with REPLACE")
        s3.delete_object_tagging(Bucket=bucket, Key="tagged")
        eq(s3.get_object_tagging(Bucket=bucket, Key="tagged")["TagSet"], [], "deleted")
        eq(client_error_code(s3.put_object, Bucket=bucket, Key="bad-tags", Body=b"x", Tagging="a=1&a=2"),
           "InvalidArgument", "put_object with duplicate tag keys (S3: InvalidArgument on the header)")
        eq(client_error_code(s3.head_object, Bucket=bucket, Key="bad-tags"), "404", "nothing stored")
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "tagged"}, {"Key": "tagged-copy"}]})

    t("object tagging: x-amz-tagging, put/get/delete_object_tagging, copy REPLACE, refusals", object_tags)

    def bucket_tags():
        eq(client_error_code(s3.get_bucket_tagging, Bucket=bucket), "NoSuchTagSet", "before any")
        tags = [{"Key": "cost-centre", "Value": "42"}, {"Key": "team", "Value": "storage"}]
        s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": tags})
        eq(s3.get_bucket_tagging(Bucket=bucket)["TagSet"], tags, "read back")
        eq(client_error_code(s3.put_bucket_tagging, Bucket=bucket,
                             Tagging={"TagSet": [{"Key": "k" * 129, "Value": "v"}]}), "InvalidTag", "long key")
        eq(s3.get_bucket_tagging(Bucket=bucket)["TagSet"], tags, "unchanged by a refusal")
        s3.delete_bucket_tagging(Bucket=bucket)
        eq(client_error_code(s3.get_bucket_tagging, Bucket=bucket), "NoSuchTagSet", "deleted")

    t("bucket tagging: put/get/delete_bucket_tagging, NoSuchTagSet, refusals", bucket_tags)
