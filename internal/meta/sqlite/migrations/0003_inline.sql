-- Small objects stored in the database (ADR 0005): their bytes commit in
-- the same transaction as their row, with one WAL fsync and no file.
-- A rowid table of its own keeps objects' rows small for listing scans.
CREATE TABLE inline_data (
    id   INTEGER PRIMARY KEY,
    data BLOB    NOT NULL
);
ALTER TABLE objects ADD COLUMN inline_id INTEGER; -- inline_data.id; NULL when the data is in a blob
