package sqlite

import (
	"database/sql"
	"slices"
	"testing"
)

// TestPendingQueryPlan pins the shape of the PENDING scan: a merge of the
// two partial indexes of migration 0019, which hold only the PENDING
// rows, not a walk of the bucket or a sort of what it finds.
func TestPendingQueryPlan(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	var plan []string
	err := queryEach(t.Context(), s.rd, "EXPLAIN QUERY PLAN "+pendingQuery, []any{1, "a", 5, 10}, func(rows *sql.Rows) error {
		var id, parent, unused any
		var detail string
		err := rows.Scan(&id, &parent, &unused, &detail)
		plan = append(plan, detail)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MERGE (UNION ALL)", "SEARCH objects USING INDEX objects_replication_pending (bucket_id=? AND key>?)",
		"SEARCH object_versions USING INDEX object_versions_replication_pending (bucket_id=? AND key>?)"} {
		if !slices.Contains(plan, want) {
			t.Errorf("plan %q lacks %q", plan, want)
		}
	}
	if slices.Contains(plan, "USE TEMP B-TREE FOR ORDER BY") {
		t.Errorf("plan %q sorts the whole result", plan)
	}
}
