-- Encryption at rest (issue 39, ADR 0027, 0028): how a version's bytes
-- are sealed, as meta.EncodeEncryption stores it (JSON of
-- meta.Encryption: mode, KMS key ID, context, the sealed data key, an
-- SSE-C key check), NULL for bytes stored as sent. It moves with the
-- version between objects and object_versions; an upload keeps the
-- sealed data key its parts are sealed under, and its completion gives
-- it to the version it creates. SQLite's migration 0018.
ALTER TABLE objects ADD COLUMN encryption bytea;
ALTER TABLE object_versions ADD COLUMN encryption bytea;
ALTER TABLE uploads ADD COLUMN encryption bytea;
