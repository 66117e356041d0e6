package postgres

import (
	"strings"
	"testing"
)

// TestPendingReplicationPlan: the PENDING scan reads the partial indexes
// of migration 0003, about a page of rows of each, however many versions
// the bucket holds that are not pending; SetReplication reads the
// version's row by its key.
func TestPendingReplicationPlan(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	id := rawBucket(t, s, "b")
	keys := prefixKeys()
	rawKeys(t, s, id, keys)
	if _, err := s.pool.Exec(ctx, `INSERT INTO object_versions (bucket_id, key, seq, version_id, size, etag, mtime)
		SELECT $1, k, g, 'v' || g, 1, 'e', 0 FROM unnest($2::text[]) AS k, generate_series(1, 5) AS g`, id, keys); err != nil {
		t.Fatal(err)
	}
	// One key in a hundred has a pending live version and a pending
	// noncurrent one; every other version is COMPLETED.
	for _, q := range []string{
		"UPDATE objects SET replication = CASE WHEN key LIKE '%1/f2' THEN 'PENDING' ELSE 'COMPLETED' END WHERE bucket_id = $1",
		"UPDATE object_versions SET replication = CASE WHEN key LIKE '%1/f2' AND seq = 3 THEN 'PENDING' ELSE 'COMPLETED' END WHERE bucket_id = $1",
	} {
		if _, err := s.pool.Exec(ctx, q, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, "ANALYZE objects, object_versions"); err != nil {
		t.Fatal(err)
	}
	const limit = 11
	for _, n := range explainScans(t, s, pendingQuery, id, "d100", int64(4611686018427387904), limit) {
		name, _ := n["Index Name"].(string)
		if !strings.HasSuffix(name, "_replication_pending") || n["Actual Rows"].(float64) > limit {
			t.Errorf("pending scan of %v: %v on %q read %v rows for a page of %d", n["Relation Name"], n["Node Type"], name, n["Actual Rows"], limit)
		}
	}
	vs, next, err := s.PendingReplication(ctx, "b", "d100", 10)
	if err != nil || len(vs) != 10 || vs[0].Key != "d101/f2" || vs[0].VersionID != "v3" || vs[1].VersionID != "null" || next != "d141/f2" {
		t.Errorf("PendingReplication after d100 = %d versions from %+v, next %q, %v", len(vs), vs[:min(len(vs), 2)], next, err)
	}
	for _, n := range explainScans(t, s, setReplicationSQL, id, "d101/f2", "v3", "PENDING", "COMPLETED") {
		if n["Node Type"] == "ModifyTable" {
			continue
		}
		read := n["Actual Rows"].(float64)
		if removed, ok := n["Rows Removed by Filter"].(float64); ok {
			read += removed
		}
		if name, _ := n["Index Name"].(string); name != "objects_pkey" && name != "object_versions_id" || read > 1 {
			t.Errorf("SetReplication: %v of %v on %q read %v rows", n["Node Type"], n["Relation Name"], name, read)
		}
	}
}
