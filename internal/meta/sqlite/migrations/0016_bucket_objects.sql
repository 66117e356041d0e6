-- Object counts (issue 26: the console lists buckets with their object
-- count and size). object_count is the number of rows of the bucket in
-- objects, the live view (one row per key whose latest version is not a
-- delete marker), kept exact by the usage triggers of migration 0015,
-- which now update both columns in their one statement. jog fsck checks
-- it with used_bytes (CheckIndexes) and, with --repair, recomputes it.
ALTER TABLE buckets ADD COLUMN object_count INTEGER NOT NULL DEFAULT 0;

UPDATE buckets SET object_count = (SELECT count(*) FROM objects WHERE bucket_id = buckets.id);

DROP TRIGGER objects_usage_insert;
DROP TRIGGER objects_usage_delete;
DROP TRIGGER objects_usage_update;
CREATE TRIGGER objects_usage_insert AFTER INSERT ON objects BEGIN
    UPDATE buckets SET used_bytes = used_bytes + NEW.size, object_count = object_count + 1 WHERE id = NEW.bucket_id;
END;
CREATE TRIGGER objects_usage_delete AFTER DELETE ON objects BEGIN
    UPDATE buckets SET used_bytes = used_bytes - OLD.size, object_count = object_count - 1 WHERE id = OLD.bucket_id;
END;
CREATE TRIGGER objects_usage_update AFTER UPDATE OF size, bucket_id ON objects BEGIN
    UPDATE buckets SET used_bytes = used_bytes - OLD.size, object_count = object_count - 1 WHERE id = OLD.bucket_id;
    UPDATE buckets SET used_bytes = used_bytes + NEW.size, object_count = object_count + 1 WHERE id = NEW.bucket_id;
END;
