-- Throughput reservations (issue 23, docs/QOS.md): a bucket's reserved
-- bytes per second of reads and writes (and optionally requests per
-- second) over [start, end), Unix seconds. Deleted with their bucket.
-- The window index serves admission control, which sums the
-- reservations overlapping a new one's window.
CREATE TABLE reservations (
    id          TEXT    NOT NULL PRIMARY KEY,
    bucket_id   INTEGER NOT NULL REFERENCES buckets(id),
    read_bps    INTEGER NOT NULL,
    write_bps   INTEGER NOT NULL,
    rps         INTEGER NOT NULL,
    start_at    INTEGER NOT NULL, -- Unix seconds
    end_at      INTEGER NOT NULL, -- Unix seconds, exclusive
    owner       TEXT    NOT NULL, -- ARN
    principal   TEXT    NOT NULL, -- ARN bound to it, or ''
    created_at  INTEGER NOT NULL  -- Unix seconds
);
CREATE INDEX reservations_bucket ON reservations (bucket_id, start_at);
CREATE INDEX reservations_end ON reservations (end_at);
