-- The PostgreSQL schema (ADR 0018): the SQLite schema's tables as they
-- are after its migration 0015, with PostgreSQL's types. Keys and names
-- are text in the "C" collation (byte-wise order, as S3 lists); times are
-- Unix milliseconds unless a column says otherwise; flags are booleans;
-- documents and inline data are bytea. There is no directory index
-- (SQLite's dirs table, ADR 0010): a delimiter listing skips from one
-- common prefix to the next with one index seek each. Nor is there
-- SQLite's buckets.has_versions (a hint that object_versions holds rows of
-- the bucket): a write reads its key's versions only under the key's lock,
-- and keeping the hint would take the bucket's row lock.

CREATE TABLE buckets (
    id           bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text    COLLATE "C" NOT NULL UNIQUE,
    region       text    NOT NULL,
    owner        text    NOT NULL,
    created_at   bigint  NOT NULL,
    versioning   text    NOT NULL DEFAULT '',    -- '', 'Enabled', 'Suspended'
    object_lock  boolean NOT NULL DEFAULT false,
    quota_bytes  bigint  NOT NULL DEFAULT 0,     -- 0: no quota
    -- used_bytes is kept only while quota_bytes > 0 (the triggers below):
    -- every write to a bucket would otherwise update this one row and
    -- serialise on its lock. BucketUsage of a bucket without a quota sums
    -- its versions; SetBucketQuota computes it when it sets one.
    used_bytes   bigint  NOT NULL DEFAULT 0
);

-- The live view: one row per key whose latest version is not a delete
-- marker. Objects written without versioning have version_id 'null'.
CREATE TABLE objects (
    bucket_id     bigint NOT NULL REFERENCES buckets(id),
    key           text   COLLATE "C" NOT NULL,
    version_id    text   NOT NULL,
    blob_id       text,            -- NULL for empty and inline objects
    inline_id     bigint,          -- inline_data.id
    size          bigint NOT NULL,
    etag          text   NOT NULL,
    mtime         bigint NOT NULL,
    storage_class text   NOT NULL DEFAULT '',
    owner         text   NOT NULL DEFAULT '',
    headers       text,            -- JSON meta.ContentHeaders
    user_meta     text,            -- JSON map of x-amz-meta-*
    checksum      text,            -- JSON meta.Checksum
    upload_id     text,            -- set for objects made of parts
    parts_count   integer NOT NULL DEFAULT 0,
    tags          text,            -- x-amz-tagging form
    acl           text,            -- JSON []acl.Grant; NULL: private
    PRIMARY KEY (bucket_id, key)
);
CREATE INDEX objects_blob ON objects (blob_id) WHERE blob_id IS NOT NULL;

-- Every other version: noncurrent versions and delete markers (a latest
-- delete marker has is_latest).
CREATE TABLE object_versions (
    bucket_id     bigint  NOT NULL REFERENCES buckets(id),
    key           text    COLLATE "C" NOT NULL,
    seq           bigint  NOT NULL, -- creation order within the key: newest highest
    version_id    text    COLLATE "C" NOT NULL,
    is_latest     boolean NOT NULL DEFAULT false,
    delete_marker boolean NOT NULL DEFAULT false,
    blob_id       text,
    inline_id     bigint,
    size          bigint  NOT NULL,
    etag          text    NOT NULL,
    mtime         bigint  NOT NULL,
    storage_class text    NOT NULL DEFAULT '',
    owner         text    NOT NULL DEFAULT '',
    headers       text,
    user_meta     text,
    checksum      text,
    upload_id     text,
    parts_count   integer NOT NULL DEFAULT 0,
    tags          text,
    acl           text,
    PRIMARY KEY (bucket_id, key, seq)
);
CREATE UNIQUE INDEX object_versions_id ON object_versions (bucket_id, key, version_id);
CREATE INDEX object_versions_blob ON object_versions (blob_id) WHERE blob_id IS NOT NULL;

-- Small objects' bytes (ADR 0005), committed with their row.
CREATE TABLE inline_data (
    id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    data bytea  NOT NULL
);

CREATE TABLE bucket_configs (
    bucket_id  bigint NOT NULL REFERENCES buckets(id),
    name       text   NOT NULL,
    doc        bytea  NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (bucket_id, name)
);

CREATE TABLE object_locks (
    bucket_id      bigint  NOT NULL REFERENCES buckets(id),
    key            text    COLLATE "C" NOT NULL,
    version_id     text    NOT NULL,
    mode           text    NOT NULL DEFAULT '', -- '', 'GOVERNANCE', 'COMPLIANCE'
    retain_until   bigint  NOT NULL DEFAULT 0,
    legal_hold     boolean NOT NULL DEFAULT false,
    legal_hold_set boolean NOT NULL DEFAULT false, -- a hold was ever placed or released
    PRIMARY KEY (bucket_id, key, version_id)
);

CREATE TABLE uploads (
    upload_id     text   COLLATE "C" PRIMARY KEY, -- time-ordered: sorts in creation order
    bucket_id     bigint NOT NULL REFERENCES buckets(id),
    key           text   COLLATE "C" NOT NULL,
    initiated     bigint NOT NULL,
    owner         text   NOT NULL DEFAULT '',
    storage_class text   NOT NULL DEFAULT '',
    headers       text,
    user_meta     text,
    checksum_algo text   NOT NULL DEFAULT '',
    checksum_type text   NOT NULL DEFAULT '',
    tags          text,
    object_lock   text,  -- JSON meta.ObjectLock
    acl           text
);
CREATE INDEX uploads_key ON uploads (bucket_id, key, upload_id);

-- Parts of uploads in progress and of completed multipart objects alike.
CREATE TABLE parts (
    upload_id     text    NOT NULL,
    part_number   integer NOT NULL,
    blob_id       text,
    size          bigint  NOT NULL,
    etag          text    NOT NULL,
    mtime         bigint  NOT NULL,
    checksum_algo text    NOT NULL DEFAULT '',
    checksum      text    NOT NULL DEFAULT '',
    PRIMARY KEY (upload_id, part_number)
);
CREATE INDEX parts_blob ON parts (blob_id) WHERE blob_id IS NOT NULL;

-- IAM. Names are unique regardless of case, as in IAM.
CREATE TABLE iam_state (
    id         integer PRIMARY KEY CHECK (id = 1),
    account_id text    NOT NULL,
    generation bigint  NOT NULL
);

CREATE TABLE iam_policies (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name            text   NOT NULL,
    path            text   NOT NULL,
    unique_id       text   NOT NULL UNIQUE,
    arn             text   NOT NULL UNIQUE,
    description     text   NOT NULL,
    document        bytea  NOT NULL,
    default_version text   NOT NULL,
    created_at      bigint NOT NULL,
    updated_at      bigint NOT NULL
);
CREATE UNIQUE INDEX iam_policies_name ON iam_policies (lower(name));

CREATE TABLE iam_entities (
    id           bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         integer NOT NULL, -- meta.EntityKind: 1 user, 2 group, 3 role
    name         text    NOT NULL,
    path         text    NOT NULL,
    unique_id    text    NOT NULL UNIQUE,
    arn          text    NOT NULL,
    created_at   bigint  NOT NULL,
    description  text    NOT NULL DEFAULT '',
    trust_policy bytea,
    max_session  integer NOT NULL DEFAULT 0,
    boundary_id  bigint  REFERENCES iam_policies(id)
);
CREATE UNIQUE INDEX iam_entities_name ON iam_entities (kind, lower(name));

CREATE TABLE iam_access_keys (
    id           text   PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES iam_entities(id),
    sealed       bytea  NOT NULL, -- AES-256-GCM under the server key
    status       text   NOT NULL,
    created_at   bigint NOT NULL,
    last_used_at bigint NOT NULL DEFAULT 0
);
CREATE INDEX iam_access_keys_user ON iam_access_keys (user_id);

CREATE TABLE iam_group_members (
    group_id bigint NOT NULL REFERENCES iam_entities(id),
    user_id  bigint NOT NULL REFERENCES iam_entities(id),
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX iam_group_members_user ON iam_group_members (user_id);

CREATE TABLE iam_inline_policies (
    entity_id bigint NOT NULL REFERENCES iam_entities(id),
    name      text   NOT NULL,
    document  bytea  NOT NULL
);
CREATE UNIQUE INDEX iam_inline_policies_name ON iam_inline_policies (entity_id, lower(name));

CREATE TABLE iam_attachments (
    entity_id bigint NOT NULL REFERENCES iam_entities(id),
    policy_id bigint NOT NULL REFERENCES iam_policies(id),
    PRIMARY KEY (entity_id, policy_id)
);
CREATE INDEX iam_attachments_policy ON iam_attachments (policy_id);

-- Throughput reservations (docs/QOS.md); times here are Unix seconds.
CREATE TABLE reservations (
    id         text   PRIMARY KEY,
    bucket_id  bigint NOT NULL REFERENCES buckets(id),
    read_bps   bigint NOT NULL,
    write_bps  bigint NOT NULL,
    rps        bigint NOT NULL,
    start_at   bigint NOT NULL,
    end_at     bigint NOT NULL, -- exclusive
    owner      text   NOT NULL,
    principal  text   NOT NULL,
    created_at bigint NOT NULL
);
CREATE INDEX reservations_bucket ON reservations (bucket_id, start_at);
CREATE INDEX reservations_end ON reservations (end_at);

-- Bucket usage for buckets with a quota: the row is updated (and locked)
-- only when the bucket has one, so writes to other buckets never touch it.
CREATE FUNCTION jog_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE buckets SET used_bytes = used_bytes - OLD.size WHERE id = OLD.bucket_id AND quota_bytes > 0;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        UPDATE buckets SET used_bytes = used_bytes + NEW.size WHERE id = NEW.bucket_id AND quota_bytes > 0;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER objects_usage AFTER INSERT OR DELETE OR UPDATE OF size, bucket_id ON objects
    FOR EACH ROW EXECUTE FUNCTION jog_usage();
CREATE TRIGGER versions_usage AFTER INSERT OR DELETE OR UPDATE OF size, bucket_id ON object_versions
    FOR EACH ROW EXECUTE FUNCTION jog_usage();

-- What gateways cache is announced to them (meta.Changes, notify.go): on
-- channel jog_changes, when the transaction that changed it commits, a
-- payload of 'b:' and a bucket's name (the bucket created or deleted, its
-- configuration documents, versioning, object lock or quota changed),
-- 'iam' (an IAM write: iam_state.generation moved), 'r' (reservations) or
-- 's' (a console session signed out).
-- Object writes announce nothing. One transaction's identical payloads
-- are delivered once.
CREATE FUNCTION jog_notify_bucket() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('jog_changes', 'b:' || OLD.name);
    ELSE
        PERFORM pg_notify('jog_changes', 'b:' || NEW.name);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER buckets_notify AFTER INSERT OR DELETE OR UPDATE OF name, versioning, object_lock, quota_bytes
    ON buckets FOR EACH ROW EXECUTE FUNCTION jog_notify_bucket();

CREATE FUNCTION jog_notify_config() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bid bigint;
BEGIN
    IF TG_OP = 'DELETE' THEN
        bid := OLD.bucket_id;
    ELSE
        bid := NEW.bucket_id;
    END IF;
    PERFORM pg_notify('jog_changes', 'b:' || b.name) FROM buckets b WHERE b.id = bid;
    RETURN NULL;
END $$;
CREATE TRIGGER bucket_configs_notify AFTER INSERT OR DELETE OR UPDATE ON bucket_configs
    FOR EACH ROW EXECUTE FUNCTION jog_notify_config();

-- jog_notify announces its trigger's argument (once per transaction).
CREATE FUNCTION jog_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('jog_changes', TG_ARGV[0]);
    RETURN NULL;
END $$;
CREATE TRIGGER iam_notify AFTER UPDATE OF generation ON iam_state
    FOR EACH ROW EXECUTE FUNCTION jog_notify('iam');
CREATE TRIGGER reservations_notify AFTER INSERT OR DELETE OR UPDATE ON reservations
    FOR EACH ROW EXECUTE FUNCTION jog_notify('r');

-- Console sessions signed out (meta.SessionRevoker, internal/console):
-- kept until the session ends (expires_at, Unix seconds), then pruned.
-- revoked_at is the database's clock (Unix seconds), which readers page
-- by; every gateway hears of a sign-out as 's'.
CREATE TABLE session_revocations (
    id         text   PRIMARY KEY,
    expires_at bigint NOT NULL,
    revoked_at bigint NOT NULL
);
CREATE INDEX session_revocations_revoked ON session_revocations (revoked_at);
CREATE INDEX session_revocations_expires ON session_revocations (expires_at);
CREATE TRIGGER session_revocations_notify AFTER INSERT ON session_revocations
    FOR EACH ROW EXECUTE FUNCTION jog_notify('s');
