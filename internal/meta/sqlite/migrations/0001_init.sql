CREATE TABLE buckets (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    region     TEXT    NOT NULL,
    owner      TEXT    NOT NULL,
    created_at INTEGER NOT NULL -- Unix milliseconds
);

-- One row per object version. Objects written without versioning have
-- version_id 'null'. Exactly one row per (bucket_id, key) has is_latest = 1.
-- key is TEXT compared with BINARY collation (memcmp): byte-wise order.
CREATE TABLE objects (
    bucket_id     INTEGER NOT NULL REFERENCES buckets(id),
    key           TEXT    NOT NULL,
    version_id    TEXT    NOT NULL,
    is_latest     INTEGER NOT NULL,
    blob_id       TEXT,             -- NULL for empty objects
    size          INTEGER NOT NULL,
    etag          TEXT    NOT NULL,
    mtime         INTEGER NOT NULL, -- Unix milliseconds
    storage_class TEXT    NOT NULL DEFAULT '',
    owner         TEXT    NOT NULL DEFAULT '',
    headers       TEXT,             -- JSON meta.ContentHeaders
    user_meta     TEXT,             -- JSON map of x-amz-meta-*
    PRIMARY KEY (bucket_id, key, version_id)
) WITHOUT ROWID;

CREATE UNIQUE INDEX objects_latest ON objects (bucket_id, key) WHERE is_latest = 1;
CREATE INDEX objects_blob ON objects (blob_id) WHERE blob_id IS NOT NULL;
