package metatest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// RunSessions runs the cases of meta.SessionRevoker (Sessions/...), which
// every store implements.
func RunSessions(t *testing.T, open Opener) { run(t, open, sessionCases) }

var sessionCases = []testCase{
	{"Sessions/Revoke", testSessionsRevoke},
}

// testSessionsRevoke: a revocation is read back until its session ends,
// the first record of an ID is kept, an ended session's record is pruned
// by the next revocation (jog migrate's export sees the table), and a
// reader paging by cursor misses none of many revoked at once.
func testSessionsRevoke(t *testing.T, s meta.Store) {
	ctx := t.Context()
	rv, ok := s.(meta.SessionRevoker)
	if !ok {
		t.Fatalf("%T does not implement meta.SessionRevoker", s)
	}
	got, cursor, err := rv.RevokedSessions(ctx, 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("RevokedSessions(0) on an empty store = %v, %v", got, err)
	}
	now := time.Now().Truncate(time.Second)
	live, ended := now.Add(12*time.Hour), now.Add(-time.Hour)
	revoke := func(id string, expires time.Time) {
		t.Helper()
		if err := rv.RevokeSession(ctx, id, expires); err != nil {
			t.Fatalf("RevokeSession(%s): %v", id, err)
		}
	}
	revoke("ASIAA", live)
	revoke("ASIAA", live.Add(time.Hour)) // kept as first recorded
	revoke("ASIAENDED", ended)
	revoke("ASIAB", live)
	got, next, err := rv.RevokedSessions(ctx, cursor)
	if err != nil {
		t.Fatal(err)
	}
	want := []meta.RevokedSession{{ID: "ASIAA", Expires: live.UTC()}, {ID: "ASIAB", Expires: live.UTC()}}
	if !equalRevoked(got, want) {
		t.Errorf("RevokedSessions = %v, want %v", got, want)
	}
	if next <= cursor {
		t.Errorf("cursor after revocations = %d, not after %d", next, cursor)
	}
	if ids := exportedIDs(t, s, "session_revocations"); !slices.Equal(ids, []string{"ASIAA", "ASIAB"}) {
		t.Errorf("rows of session_revocations = %q, want the ended session's pruned", ids)
	}

	// Many gateways revoking at once: a reader from the cursor sees all.
	var wg sync.WaitGroup
	ids := make([]string, 16)
	for i := range ids {
		ids[i] = fmt.Sprintf("ASIAC%02d", i)
		wg.Go(func() {
			if err := rv.RevokeSession(ctx, ids[i], live); err != nil {
				t.Errorf("RevokeSession(%s): %v", ids[i], err)
			}
		})
	}
	wg.Wait()
	got, _, err = rv.RevokedSessions(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range got {
		seen[r.ID] = true
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("RevokedSessions(cursor) misses %s, revoked after the cursor", id)
		}
	}
}

func equalRevoked(got, want []meta.RevokedSession) bool {
	got = slices.Clone(got)
	slices.SortFunc(got, func(a, b meta.RevokedSession) int { return strings.Compare(a.ID, b.ID) })
	return slices.EqualFunc(got, want, func(a, b meta.RevokedSession) bool { return a.ID == b.ID && a.Expires.Equal(b.Expires) })
}

// exportedIDs are the first column of table's rows, as jog migrate
// exports them.
func exportedIDs(t *testing.T, s meta.Store, table string) []string {
	t.Helper()
	ex, ok := s.(meta.Exporter)
	if !ok {
		t.Skipf("%T cannot export", s)
	}
	i := slices.IndexFunc(meta.Tables, func(tab meta.Table) bool { return tab.Name == table })
	if i < 0 {
		t.Fatalf("meta.Tables lacks %s", table)
	}
	e, err := ex.BeginExport(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var ids []string
	if err := e.Rows(t.Context(), meta.Tables[i], func(r meta.Row) error {
		ids = append(ids, r[0].(string))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}
