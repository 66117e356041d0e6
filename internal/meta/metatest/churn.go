package metatest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// testListChurn checks listings while keys come and go: puts of new keys,
// overwrites, versions kept and deleted, deletes of the latest version
// (promoting an older one or not) and of missing keys, in nested
// "directories". Every few operations every directory is listed with the
// delimiter "/", page by page and from assorted After values, against
// Reference over the keys that have a latest version. A store that keeps
// derived state for listings (an index of directories) must keep it exact.
func testListChurn(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	rng := rand.New(rand.NewPCG(1, 2))
	segments := []string{"a", "b", "a/", "/", "x", "é"}
	var pool []string // keys the operations pick from
	for len(pool) < 40 {
		var k strings.Builder
		for n := 1 + rng.IntN(4); n > 0; n-- {
			k.WriteString(segments[rng.IntN(len(segments))])
			if rng.IntN(2) == 0 {
				k.WriteString("/")
			}
		}
		if !slices.Contains(pool, k.String()) {
			pool = append(pool, k.String())
		}
	}
	// versions[key] lists the key's versions, the latest last (the store
	// promotes the newest remaining version by modification time).
	versions := map[string][]string{}
	now := t0
	for op := 1; op <= 400; op++ {
		key := pool[rng.IntN(len(pool))]
		vs := versions[key]
		switch r := rng.IntN(10); {
		case r < 5: // put: a new version, or the null version replaced
			v := meta.NullVersion
			if rng.IntN(3) == 0 {
				v = fmt.Sprintf("v%d", op)
			}
			o := object("b", key, newBlob())
			now = now.Add(time.Millisecond)
			o.VersionID, o.LastModified = v, now
			put(t, s, o)
			versions[key] = append(slices.DeleteFunc(vs, func(x string) bool { return x == v }), v)
		case r < 8: // delete the latest version (of a key that may not exist)
			del(t, s, "b", key)
			if len(vs) > 0 {
				versions[key] = vs[:len(vs)-1]
			}
		default: // delete one version by its ID, latest or not
			if len(vs) == 0 {
				continue
			}
			v := vs[rng.IntN(len(vs))]
			if _, err := s.DeleteObject(ctx, "b", key, v, meta.Condition{}); err != nil {
				t.Fatalf("DeleteObject(%q, %q): %v", key, v, err)
			}
			versions[key] = slices.DeleteFunc(vs, func(x string) bool { return x == v })
		}
		if op%25 == 0 && !checkChurn(t, s, pool, versions, rng) {
			t.Fatalf("after operation %d", op)
		}
	}
}

// checkChurn lists every directory of the key pool, and prefixes cut from
// its keys, against Reference.
func checkChurn(t *testing.T, s meta.Store, pool []string, versions map[string][]string, rng *rand.Rand) bool {
	t.Helper()
	var keys []string
	for k, vs := range versions {
		if len(vs) > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	dirs := map[string]bool{"": true}
	for _, k := range pool {
		for i := range len(k) {
			if k[i] == '/' {
				dirs[k[:i+1]] = true
			}
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		walkList(t, s, "b", keys, meta.ListOptions{Prefix: d, Delimiter: "/", Limit: 1 + rng.IntN(3)})
		for range 3 {
			after := pool[rng.IntN(len(pool))]
			if rng.IntN(2) == 0 {
				after = after[:rng.IntN(len(after)+1)]
			}
			list(t, s, "b", keys, meta.ListOptions{Prefix: d, Delimiter: "/", After: after, Limit: 1 + rng.IntN(4)})
		}
	}
	for range 10 { // prefixes that are not directories
		k := pool[rng.IntN(len(pool))]
		p := k[:rng.IntN(len(k)+1)]
		walkList(t, s, "b", keys, meta.ListOptions{Prefix: p, Delimiter: "/", Limit: 1 + rng.IntN(3)})
		list(t, s, "b", keys, meta.ListOptions{Prefix: p, Delimiter: "/", After: pool[rng.IntN(len(pool))], Limit: 2})
	}
	walkList(t, s, "b", keys, meta.ListOptions{Limit: 7})
	return !t.Failed()
}
