-- The directory index (ADR 0010): listings with the delimiter "/" under a
-- prefix that is "" or ends in "/" read two ordered ranges instead of
-- seeking past every common prefix.
--
-- parent is the key up to and including its last "/" ('' when it has
-- none): the keys a listing under prefix P returns as Contents are those
-- with parent = P. Rows written before this migration are filled in by
-- fillDirs (migrate.go runs it in the same transaction).
ALTER TABLE objects ADD COLUMN parent TEXT NOT NULL DEFAULT '';

-- The one latest row per key, now ordered by directory. parent is a
-- function of key, so this is as unique as the index it replaces; lookups
-- of one key's latest version use the table's own key.
DROP INDEX objects_latest;
CREATE UNIQUE INDEX objects_latest_by_dir ON objects (bucket_id, parent, key) WHERE is_latest = 1;

-- One row per directory: every key prefix that ends in "/" of a key with a
-- latest version. The common prefixes of a listing under P are the rows
-- with parent = P.
CREATE TABLE dirs (
    bucket_id INTEGER NOT NULL REFERENCES buckets(id),
    parent    TEXT    NOT NULL, -- name without its last segment
    name      TEXT    NOT NULL, -- ends in "/"
    PRIMARY KEY (bucket_id, parent, name)
) WITHOUT ROWID;
