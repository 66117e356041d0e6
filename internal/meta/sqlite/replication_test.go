package sqlite

import "testing"

// TestPendingQueryPlan pins the shape of the PENDING scan: a merge of the
// two partial indexes of migration 0019, which hold only the PENDING
// rows, not a walk of the bucket or a sort of what it finds.
func TestPendingQueryPlan(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	wantMerge(t, queryPlan(t, s, pendingQuery, 1, "a", 5, 10),
		"SEARCH objects USING INDEX objects_replication_pending (bucket_id=? AND key>?)",
		"SEARCH object_versions USING INDEX object_versions_replication_pending (bucket_id=? AND key>?)")
}
