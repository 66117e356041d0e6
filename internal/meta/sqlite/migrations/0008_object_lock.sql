-- Object lock (S3 Object Lock). buckets.object_lock marks a bucket created
-- with object lock: only such a bucket reads object_locks, so the others
-- pay no query for it on any write or delete. object_locks holds one row
-- per version that has (or had) a retention or a legal hold.
ALTER TABLE buckets ADD COLUMN object_lock INTEGER NOT NULL DEFAULT 0;

CREATE TABLE object_locks (
    bucket_id    INTEGER NOT NULL REFERENCES buckets(id),
    key          TEXT    NOT NULL,
    version_id   TEXT    NOT NULL,
    mode         TEXT    NOT NULL DEFAULT '', -- '', 'GOVERNANCE', 'COMPLIANCE'
    retain_until INTEGER NOT NULL DEFAULT 0,  -- Unix milliseconds
    legal_hold   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket_id, key, version_id)
) WITHOUT ROWID;
