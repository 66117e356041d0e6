-- Flexible checksums and multipart uploads.
ALTER TABLE objects ADD COLUMN checksum TEXT;            -- JSON meta.Checksum
ALTER TABLE objects ADD COLUMN upload_id TEXT;           -- set for objects made of parts
ALTER TABLE objects ADD COLUMN parts_count INTEGER NOT NULL DEFAULT 0;

CREATE TABLE uploads (
    upload_id     TEXT    PRIMARY KEY, -- time-ordered: sorts in creation order
    bucket_id     INTEGER NOT NULL REFERENCES buckets(id),
    key           TEXT    NOT NULL,
    initiated     INTEGER NOT NULL,    -- Unix milliseconds
    owner         TEXT    NOT NULL DEFAULT '',
    storage_class TEXT    NOT NULL DEFAULT '',
    headers       TEXT,
    user_meta     TEXT,
    checksum_algo TEXT    NOT NULL DEFAULT '',
    checksum_type TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX uploads_key ON uploads (bucket_id, key, upload_id);

-- Parts of uploads in progress and of completed multipart objects alike:
-- completion keeps the chosen rows (and their blobs) and deletes the rest.
CREATE TABLE parts (
    upload_id     TEXT    NOT NULL,
    part_number   INTEGER NOT NULL,
    blob_id       TEXT,
    size          INTEGER NOT NULL,
    etag          TEXT    NOT NULL,
    mtime         INTEGER NOT NULL,
    checksum_algo TEXT    NOT NULL DEFAULT '',
    checksum      TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (upload_id, part_number)
) WITHOUT ROWID;
CREATE INDEX parts_blob ON parts (blob_id) WHERE blob_id IS NOT NULL;
