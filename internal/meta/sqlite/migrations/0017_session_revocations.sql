-- Console sessions signed out (meta.SessionRevoker, internal/console),
-- kept until the session ends (expires_at, Unix seconds), then pruned;
-- revoked_at (Unix seconds) is what readers page by.
CREATE TABLE session_revocations (
    id         TEXT    NOT NULL PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER NOT NULL
);
CREATE INDEX session_revocations_revoked ON session_revocations (revoked_at);
CREATE INDEX session_revocations_expires ON session_revocations (expires_at);
