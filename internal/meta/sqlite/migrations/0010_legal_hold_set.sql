-- A legal hold released (OFF) is not a legal hold never set: S3 answers
-- GetObjectLegalHold of the first with Status OFF and of the second with
-- 404 NoSuchObjectLockConfiguration, and sends x-amz-object-lock-legal-hold
-- on GET and HEAD only for a version that has had one. legal_hold_set
-- records that a hold was placed or released on the version; a row that
-- holds one today had one placed.
ALTER TABLE object_locks ADD COLUMN legal_hold_set INTEGER NOT NULL DEFAULT 0;
UPDATE object_locks SET legal_hold_set = 1 WHERE legal_hold = 1;
