-- IAM: the account's users, groups and roles (one table, by kind), their
-- access keys, group membership, managed policies, inline policies and
-- attachments. Names are unique regardless of case, as in IAM. Deleting an
-- entity that is still referred to is refused by the store (DeleteConflict)
-- before the foreign keys would.
--
-- iam_state holds one row: the account ID (12 digits, chosen when this
-- migration runs, by its Go step) and the change counter every IAM write
-- advances (meta.IAMStore.IAMGeneration).
CREATE TABLE iam_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    account_id TEXT    NOT NULL,
    generation INTEGER NOT NULL
);

CREATE TABLE iam_entities (
    id            INTEGER PRIMARY KEY,
    kind          INTEGER NOT NULL,                 -- meta.EntityKind: 1 user, 2 group, 3 role
    name          TEXT    NOT NULL COLLATE NOCASE,
    path          TEXT    NOT NULL,
    unique_id     TEXT    NOT NULL UNIQUE,          -- AIDA…, AGPA…, AROA…
    arn           TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,                 -- Unix milliseconds
    description   TEXT    NOT NULL DEFAULT '',      -- roles
    trust_policy  BLOB,                             -- roles: AssumeRolePolicyDocument
    max_session   INTEGER NOT NULL DEFAULT 0,       -- roles: seconds
    UNIQUE (kind, name)
);

CREATE TABLE iam_access_keys (
    id           TEXT    PRIMARY KEY,               -- AKIA…
    user_id      INTEGER NOT NULL REFERENCES iam_entities(id),
    sealed       BLOB    NOT NULL,                  -- the secret, AES-256-GCM under the server key
    status       TEXT    NOT NULL,                  -- Active, Inactive
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER NOT NULL DEFAULT 0         -- 0: never
);
CREATE INDEX iam_access_keys_user ON iam_access_keys (user_id);

CREATE TABLE iam_group_members (
    group_id INTEGER NOT NULL REFERENCES iam_entities(id),
    user_id  INTEGER NOT NULL REFERENCES iam_entities(id),
    PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;
CREATE INDEX iam_group_members_user ON iam_group_members (user_id);

CREATE TABLE iam_policies (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    path            TEXT    NOT NULL,
    unique_id       TEXT    NOT NULL UNIQUE,        -- ANPA…
    arn             TEXT    NOT NULL UNIQUE,
    description     TEXT    NOT NULL,
    document        BLOB    NOT NULL,
    default_version TEXT    NOT NULL,               -- always v1: one version kept
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

CREATE TABLE iam_inline_policies (
    entity_id INTEGER NOT NULL REFERENCES iam_entities(id),
    name      TEXT    NOT NULL COLLATE NOCASE,
    document  BLOB    NOT NULL,
    PRIMARY KEY (entity_id, name)
) WITHOUT ROWID;

CREATE TABLE iam_attachments (
    entity_id INTEGER NOT NULL REFERENCES iam_entities(id),
    policy_id INTEGER NOT NULL REFERENCES iam_policies(id),
    PRIMARY KEY (entity_id, policy_id)
) WITHOUT ROWID;
CREATE INDEX iam_attachments_policy ON iam_attachments (policy_id);
