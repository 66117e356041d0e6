-- Bucket replication (issue 40, ADR 0031): a version's replication
-- status, meta.Object.Replication: PENDING, COMPLETED, FAILED or REPLICA;
-- NULL for none (every row written before this migration). It is written
-- with the version, in the same transaction, and moves with it between
-- objects and object_versions, as encryption does. SQLite's migration
-- 0019.
--
-- The partial indexes hold only the PENDING rows: PendingReplication (the
-- scan that requeues what a crash or a full queue left unsent) reads
-- them in key order, oldest version first, without walking the bucket,
-- and they cost nothing for rows with any other status.
ALTER TABLE objects ADD COLUMN replication text;
ALTER TABLE object_versions ADD COLUMN replication text;
CREATE INDEX objects_replication_pending ON objects (bucket_id, key) WHERE replication = 'PENDING';
CREATE INDEX object_versions_replication_pending ON object_versions (bucket_id, key, seq) WHERE replication = 'PENDING';
