-- Object versioning (ADR 0012). objects keeps exactly the live view: one
-- row per key whose latest version is not a delete marker, so listings,
-- the directory index and GET of the latest read no other version.
-- object_versions holds every other version: noncurrent versions and
-- delete markers (a latest delete marker has is_latest = 1).
ALTER TABLE buckets ADD COLUMN versioning TEXT NOT NULL DEFAULT ''; -- '', 'Enabled', 'Suspended'
-- has_versions is set once object_versions holds a row of the bucket: a
-- write to a bucket without it skips every object_versions lookup.
ALTER TABLE buckets ADD COLUMN has_versions INTEGER NOT NULL DEFAULT 0;

CREATE TABLE object_versions (
    bucket_id     INTEGER NOT NULL REFERENCES buckets(id),
    key           TEXT    NOT NULL,
    seq           INTEGER NOT NULL, -- creation order within the key: newest highest
    version_id    TEXT    NOT NULL,
    is_latest     INTEGER NOT NULL DEFAULT 0, -- 1 only on a latest delete marker
    delete_marker INTEGER NOT NULL DEFAULT 0,
    blob_id       TEXT,
    size          INTEGER NOT NULL,
    etag          TEXT    NOT NULL,
    mtime         INTEGER NOT NULL,
    storage_class TEXT    NOT NULL DEFAULT '',
    owner         TEXT    NOT NULL DEFAULT '',
    headers       TEXT,
    user_meta     TEXT,
    checksum      TEXT,
    upload_id     TEXT,
    parts_count   INTEGER NOT NULL DEFAULT 0,
    inline_id     INTEGER,
    PRIMARY KEY (bucket_id, key, seq DESC)
) WITHOUT ROWID;
CREATE UNIQUE INDEX object_versions_id ON object_versions (bucket_id, key, version_id);
CREATE INDEX object_versions_blob ON object_versions (blob_id) WHERE blob_id IS NOT NULL;

-- Rows the store kept as noncurrent in objects before this migration.
INSERT INTO object_versions (bucket_id, key, seq, version_id, is_latest, delete_marker, blob_id, size, etag,
    mtime, storage_class, owner, headers, user_meta, checksum, upload_id, parts_count, inline_id)
SELECT bucket_id, key, row_number() OVER (PARTITION BY bucket_id, key ORDER BY mtime, version_id), version_id, 0, 0,
    blob_id, size, etag, mtime, storage_class, owner, headers, user_meta, checksum, upload_id, parts_count, inline_id
FROM objects WHERE is_latest = 0;
DELETE FROM objects WHERE is_latest = 0;
UPDATE buckets SET has_versions = 1 WHERE id IN (SELECT DISTINCT bucket_id FROM object_versions);
