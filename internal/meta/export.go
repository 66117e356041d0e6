package meta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
)

// Exporter and Importer are optional capabilities of a Store that jog
// migrate (internal/metamigrate) uses to copy a store's rows into a store
// of another backend exactly: every table of Tables, row by row, with the
// IDs, version IDs, sequence numbers, timestamps and sealed secrets as
// they are. Columns a store derives from the others (SQLite's directory
// index and parent column, the bucket usage quotas are checked against)
// are not in Tables: an importer computes them itself.
//
// The tables are the same in both schemas (migrations/ of each store);
// Tables names each in the order an importer can insert them (a row's
// foreign keys point to tables before it), with its columns and the
// columns of its primary key, in which rows are exported.
type Exporter interface {
	// BeginExport starts reading the store from one snapshot; Close the
	// Export when done.
	BeginExport(ctx context.Context) (Export, error)
}

// Export is one snapshot of a store being read.
type Export interface {
	// Rows calls fn with each row of t in primary-key order (byte-wise
	// for text), one at a time: memory does not grow with the table. The
	// row is fn's only until fn returns.
	Rows(ctx context.Context, t Table, fn func(Row) error) error
	Close() error
}

// Importer is a Store that can be filled with another store's rows.
type Importer interface {
	// BeginImport starts writing rows into the store in one transaction.
	// The store must be empty: no bucket, no upload, no IAM entity or
	// policy, no reservation (ErrNotEmpty otherwise). Rollback the Import
	// unless Commit succeeded.
	BeginImport(ctx context.Context) (Import, error)
}

// Import is an import in progress: nothing is visible until Commit.
type Import interface {
	// Write inserts rows of t as they are. Tables are written in Tables
	// order, each whole before the next.
	Write(ctx context.Context, t Table, rows []Row) error
	// Commit computes the derived columns and indexes and commits.
	Commit(ctx context.Context) error
	Rollback() error
}

// ErrNotEmpty reports an import into a store that holds data already.
var ErrNotEmpty = errors.New("the metadata store is not empty")

// Row is one row of a Table: Row[i] is the value of Columns[i], of the Go
// type its Kind names, or nil for NULL (only in a Nullable column).
type Row []any

// Kind is the type of a column's values in a Row.
type Kind int

// Column kinds.
const (
	KindInt   Kind = iota // int64
	KindText              // string
	KindBool              // bool (SQLite stores 0 or 1)
	KindBytes             // []byte
)

// Column is one column of a Table.
type Column struct {
	Name     string
	Kind     Kind
	Nullable bool
}

// Table is one table as Exporter and Importer see it.
type Table struct {
	Name    string
	Columns []Column
	// Key is the primary key's columns: rows are exported in their order.
	Key []string
}

// ColumnNames returns t's column names in order.
func (t Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// OrderBy is t's primary key as an SQL ORDER BY list, collate (the
// store's byte-wise collation clause, e.g. ` COLLATE "C"`) after each
// text column, so that every store exports rows in the same order.
func (t Table) OrderBy(collate string) string {
	parts := make([]string, len(t.Key))
	for i, k := range t.Key {
		parts[i] = k
		for _, c := range t.Columns {
			if c.Name == k && c.Kind == KindText {
				parts[i] += collate
			}
		}
	}
	return strings.Join(parts, ", ")
}

func col(name string, k Kind) Column     { return Column{Name: name, Kind: k} }
func nullCol(name string, k Kind) Column { return Column{Name: name, Kind: k, Nullable: true} }

// versionColumns are the columns objects and object_versions share after
// their keys.
var versionColumns = []Column{
	nullCol("blob_id", KindText), nullCol("inline_id", KindInt), col("size", KindInt), col("etag", KindText),
	col("mtime", KindInt), col("storage_class", KindText), col("owner", KindText), nullCol("headers", KindText),
	nullCol("user_meta", KindText), nullCol("checksum", KindText), nullCol("upload_id", KindText),
	col("parts_count", KindInt), nullCol("tags", KindText), nullCol("acl", KindText), nullCol("encryption", KindBytes),
	nullCol("replication", KindText),
}

// Tables are the tables Exporter and Importer copy, in insertion order.
var Tables = []Table{
	{Name: "buckets", Key: []string{"id"}, Columns: []Column{
		col("id", KindInt), col("name", KindText), col("region", KindText), col("owner", KindText),
		col("created_at", KindInt), col("versioning", KindText), col("object_lock", KindBool), col("quota_bytes", KindInt),
	}},
	{Name: "inline_data", Key: []string{"id"}, Columns: []Column{col("id", KindInt), col("data", KindBytes)}},
	{Name: "objects", Key: []string{"bucket_id", "key"}, Columns: append([]Column{
		col("bucket_id", KindInt), col("key", KindText), col("version_id", KindText),
	}, versionColumns...)},
	{Name: "object_versions", Key: []string{"bucket_id", "key", "seq"}, Columns: append([]Column{
		col("bucket_id", KindInt), col("key", KindText), col("seq", KindInt), col("version_id", KindText),
		col("is_latest", KindBool), col("delete_marker", KindBool),
	}, versionColumns...)},
	{Name: "bucket_configs", Key: []string{"bucket_id", "name"}, Columns: []Column{
		col("bucket_id", KindInt), col("name", KindText), col("doc", KindBytes), col("updated_at", KindInt),
	}},
	{Name: "object_locks", Key: []string{"bucket_id", "key", "version_id"}, Columns: []Column{
		col("bucket_id", KindInt), col("key", KindText), col("version_id", KindText), col("mode", KindText),
		col("retain_until", KindInt), col("legal_hold", KindBool), col("legal_hold_set", KindBool),
	}},
	{Name: "uploads", Key: []string{"upload_id"}, Columns: []Column{
		col("upload_id", KindText), col("bucket_id", KindInt), col("key", KindText), col("initiated", KindInt),
		col("owner", KindText), col("storage_class", KindText), nullCol("headers", KindText), nullCol("user_meta", KindText),
		col("checksum_algo", KindText), col("checksum_type", KindText), nullCol("tags", KindText),
		nullCol("object_lock", KindText), nullCol("acl", KindText), nullCol("encryption", KindBytes),
	}},
	{Name: "parts", Key: []string{"upload_id", "part_number"}, Columns: []Column{
		col("upload_id", KindText), col("part_number", KindInt), nullCol("blob_id", KindText), col("size", KindInt),
		col("etag", KindText), col("mtime", KindInt), col("checksum_algo", KindText), col("checksum", KindText),
	}},
	{Name: "iam_state", Key: []string{"id"}, Columns: []Column{
		col("id", KindInt), col("account_id", KindText), col("generation", KindInt),
	}},
	{Name: "iam_policies", Key: []string{"id"}, Columns: []Column{
		col("id", KindInt), col("name", KindText), col("path", KindText), col("unique_id", KindText), col("arn", KindText),
		col("description", KindText), col("document", KindBytes), col("default_version", KindText),
		col("created_at", KindInt), col("updated_at", KindInt),
	}},
	{Name: "iam_entities", Key: []string{"id"}, Columns: []Column{
		col("id", KindInt), col("kind", KindInt), col("name", KindText), col("path", KindText), col("unique_id", KindText),
		col("arn", KindText), col("created_at", KindInt), col("description", KindText), nullCol("trust_policy", KindBytes),
		col("max_session", KindInt), nullCol("boundary_id", KindInt),
	}},
	{Name: "iam_access_keys", Key: []string{"id"}, Columns: []Column{
		col("id", KindText), col("user_id", KindInt), col("sealed", KindBytes), col("status", KindText),
		col("created_at", KindInt), col("last_used_at", KindInt),
	}},
	{Name: "iam_group_members", Key: []string{"group_id", "user_id"}, Columns: []Column{
		col("group_id", KindInt), col("user_id", KindInt),
	}},
	{Name: "iam_inline_policies", Key: []string{"entity_id", "name"}, Columns: []Column{
		col("entity_id", KindInt), col("name", KindText), col("document", KindBytes),
	}},
	{Name: "iam_attachments", Key: []string{"entity_id", "policy_id"}, Columns: []Column{
		col("entity_id", KindInt), col("policy_id", KindInt),
	}},
	{Name: "reservations", Key: []string{"id"}, Columns: []Column{
		col("id", KindText), col("bucket_id", KindInt), col("read_bps", KindInt), col("write_bps", KindInt),
		col("rps", KindInt), col("start_at", KindInt), col("end_at", KindInt), col("owner", KindText),
		col("principal", KindText), col("created_at", KindInt),
	}},
	{Name: "session_revocations", Key: []string{"id"}, Columns: []Column{
		col("id", KindText), col("expires_at", KindInt), col("revoked_at", KindInt),
	}},
}

// Value converts v, a value a database driver returned for column c, to
// the Go type c.Kind names (nil stays nil in a nullable column): drivers
// differ in the integer widths and text types they return.
func (c Column) Value(v any) (any, error) {
	if v == nil {
		if !c.Nullable {
			return nil, fmt.Errorf("column %s: NULL in a NOT NULL column", c.Name)
		}
		return nil, nil
	}
	switch c.Kind {
	case KindInt:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case int:
			return int64(x), nil
		}
	case KindText:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case KindBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		}
	case KindBytes:
		switch x := v.(type) {
		case []byte:
			return bytes.Clone(x), nil
		case string:
			return []byte(x), nil
		}
	}
	return nil, fmt.Errorf("column %s: unexpected value of type %T", c.Name, v)
}
