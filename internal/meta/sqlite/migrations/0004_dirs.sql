-- The directory index (ADR 0010): listings with the delimiter "/" under a
-- prefix that is "" or ends in "/" read two ordered ranges instead of
-- seeking past every common prefix.
--
-- parent is the key up to and including its last "/" ('' when it has
-- none): the keys a listing under prefix P returns as Contents are those
-- with parent = P. Rows written before this migration are filled in by
-- fillDirs (migrate.go runs it in the same transaction).
ALTER TABLE objects ADD COLUMN parent TEXT NOT NULL DEFAULT '';
CREATE INDEX objects_parent ON objects (bucket_id, parent, key) WHERE is_latest = 1;

-- One row per directory: every key prefix that ends in "/" of a key with a
-- latest version. n counts those keys (at any depth below name); a row
-- goes when its count reaches 0. The common prefixes of a listing under P
-- are the rows with parent = P.
CREATE TABLE dirs (
    bucket_id INTEGER NOT NULL REFERENCES buckets(id),
    parent    TEXT    NOT NULL, -- name without its last segment
    name      TEXT    NOT NULL, -- ends in "/"
    n         INTEGER NOT NULL,
    PRIMARY KEY (bucket_id, parent, name)
) WITHOUT ROWID;
