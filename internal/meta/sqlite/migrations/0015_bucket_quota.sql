-- Bucket quotas (issue 23 item 2, docs/QOS.md): quota_bytes is the most
-- the bucket's stored versions may sum to (0: no quota); used_bytes is
-- that sum, kept exact by the triggers below in the transaction of every
-- change to objects and object_versions (puts, overwrites, completions,
-- deletes, version moves, lifecycle expiry). jog fsck checks it
-- (CheckIndexes) and, with --repair, recomputes it.
ALTER TABLE buckets ADD COLUMN quota_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE buckets ADD COLUMN used_bytes INTEGER NOT NULL DEFAULT 0;

UPDATE buckets SET used_bytes =
    (SELECT COALESCE(SUM(size), 0) FROM objects WHERE bucket_id = buckets.id) +
    (SELECT COALESCE(SUM(size), 0) FROM object_versions WHERE bucket_id = buckets.id);

CREATE TRIGGER objects_usage_insert AFTER INSERT ON objects BEGIN
    UPDATE buckets SET used_bytes = used_bytes + NEW.size WHERE id = NEW.bucket_id;
END;
CREATE TRIGGER objects_usage_delete AFTER DELETE ON objects BEGIN
    UPDATE buckets SET used_bytes = used_bytes - OLD.size WHERE id = OLD.bucket_id;
END;
CREATE TRIGGER objects_usage_update AFTER UPDATE OF size, bucket_id ON objects BEGIN
    UPDATE buckets SET used_bytes = used_bytes - OLD.size WHERE id = OLD.bucket_id;
    UPDATE buckets SET used_bytes = used_bytes + NEW.size WHERE id = NEW.bucket_id;
END;
CREATE TRIGGER versions_usage_insert AFTER INSERT ON object_versions BEGIN
    UPDATE buckets SET used_bytes = used_bytes + NEW.size WHERE id = NEW.bucket_id;
END;
CREATE TRIGGER versions_usage_delete AFTER DELETE ON object_versions BEGIN
    UPDATE buckets SET used_bytes = used_bytes - OLD.size WHERE id = OLD.bucket_id;
END;
CREATE TRIGGER versions_usage_update AFTER UPDATE OF size, bucket_id ON object_versions BEGIN
    UPDATE buckets SET used_bytes = used_bytes - OLD.size WHERE id = OLD.bucket_id;
    UPDATE buckets SET used_bytes = used_bytes + NEW.size WHERE id = NEW.bucket_id;
END;
