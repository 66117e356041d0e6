-- Bucket configurations (CORS today; lifecycle, policy, tagging, object
-- lock, versioning later): one opaque document per (bucket, name), in the
-- format of the package that owns it. Deleted with their bucket.
CREATE TABLE bucket_configs (
    bucket_id  INTEGER NOT NULL REFERENCES buckets(id),
    name       TEXT    NOT NULL, -- "cors", …
    doc        BLOB    NOT NULL,
    updated_at INTEGER NOT NULL, -- Unix milliseconds
    PRIMARY KEY (bucket_id, name)
) WITHOUT ROWID;
