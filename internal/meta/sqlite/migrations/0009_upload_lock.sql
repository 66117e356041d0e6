-- Object lock on multipart uploads (issue 20): the retention and legal
-- hold CreateMultipartUpload was given (x-amz-object-lock-*), as JSON of
-- meta.ObjectLock, NULL for none. CompleteMultipartUpload gives them to
-- the version it creates, in the same transaction.
ALTER TABLE uploads ADD COLUMN object_lock TEXT;
