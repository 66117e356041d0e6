package metatest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Cases of bucket replication's status (issue 40, ADR 0031): a version's
// Replication is written with it, read back by every read that returns
// it, moves with it when it becomes noncurrent, changes only through
// SetReplication's compare and set, and the PENDING versions are listed
// by key, oldest first, a key never split between two pages.
func init() {
	objectCases = append(objectCases,
		testCase{"Replication/RoundTrip", testReplicationRoundTrip},
		testCase{"Replication/Versions", testReplicationVersions},
		testCase{"Replication/Set", testReplicationSet},
		testCase{"Replication/Pending", testReplicationPending})
	uploadCases = append(uploadCases, testCase{"Multipart/Replication", testUploadReplication})
}

// versionReplication is the Replication GetObject returns of key's
// version in bucket b.
func versionReplication(t *testing.T, s meta.Store, key, versionID string) string {
	t.Helper()
	return getVersion(t, s, key, versionID).Replication
}

// listedReplication is what ListObjectVersions and ScanObjects return of
// each version of bucket b, key@version → status, one map each.
func listedReplication(t *testing.T, s meta.Store) (listed, scanned map[string]string) {
	t.Helper()
	listed, scanned = map[string]string{}, map[string]string{}
	for _, v := range listVersions(t, s, "b", meta.ListVersionsOptions{Limit: 1000}).Versions {
		listed[v.Key+"@"+v.VersionID] = v.Replication
	}
	objs, err := s.ScanObjects(t.Context(), "b", "", "", 1000)
	if err != nil {
		t.Fatalf("ScanObjects: %v", err)
	}
	for _, o := range objs {
		scanned[o.Key+"@"+o.VersionID] = o.Replication
	}
	return listed, scanned
}

// wantListed checks the status every listing gives each version of want.
func wantListed(t *testing.T, s meta.Store, want map[string]string) {
	t.Helper()
	listed, scanned := listedReplication(t, s)
	if !reflect.DeepEqual(listed, want) {
		t.Errorf("ListObjectVersions statuses = %v, want %v", listed, want)
	}
	if !reflect.DeepEqual(scanned, want) {
		t.Errorf("ScanObjects statuses = %v, want %v", scanned, want)
	}
}

func versioned(key, versionID, status string) meta.Object {
	o := object("b", key, newBlob())
	o.VersionID, o.Replication = versionID, status
	return o
}

// testReplicationRoundTrip: each status comes back from GetObject and the
// listings, for a blob object, an inline one and a delete marker; a
// version written without one reads back "".
func testReplicationRoundTrip(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	put(t, s, versioned("blob", "v1", meta.ReplicationPending))
	put(t, s, meta.Object{Bucket: "b", Key: "inline", VersionID: "v2", Inline: []byte("bytes"), Size: 5, ETag: "e", LastModified: t0,
		Replication: meta.ReplicationReplica})
	put(t, s, versioned("plain", "v3", ""))
	put(t, s, versioned("done", "v4", meta.ReplicationCompleted))
	put(t, s, versioned("failed", "v5", meta.ReplicationFailed))
	m := marker("b", "gone", "v6", t0)
	m.Replication = meta.ReplicationPending
	put(t, s, m)

	want := map[string]string{"blob@v1": meta.ReplicationPending, "inline@v2": meta.ReplicationReplica, "plain@v3": "",
		"done@v4": meta.ReplicationCompleted, "failed@v5": meta.ReplicationFailed, "gone@v6": meta.ReplicationPending}
	for kv, status := range want {
		if kv == "gone@v6" {
			continue // GetObject returns no delete marker
		}
		key, v, _ := strings.Cut(kv, "@")
		if got := versionReplication(t, s, key, ""); got != status {
			t.Errorf("GetObject(%q) Replication = %q, want %q", key, got, status)
		}
		if got := versionReplication(t, s, key, v); got != status {
			t.Errorf("GetObject(%q, %q) Replication = %q, want %q", key, v, got, status)
		}
	}
	wantListed(t, s, want)
}

// testReplicationVersions: each version keeps its status as it becomes
// noncurrent, under a delete marker, and live again.
func testReplicationVersions(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	want := map[string]string{"k@v1": meta.ReplicationPending, "k@v2": meta.ReplicationCompleted, "k@v3": ""}
	for _, v := range []string{"v1", "v2", "v3"} {
		put(t, s, versioned("k", v, want["k@"+v]))
	}
	m := marker("b", "k", "m4", t0.Add(time.Second))
	m.Replication = meta.ReplicationFailed
	put(t, s, m)
	want["k@m4"] = meta.ReplicationFailed
	for _, v := range []string{"v1", "v2", "v3"} {
		if got := versionReplication(t, s, "k", v); got != want["k@"+v] {
			t.Errorf("noncurrent %s: Replication = %q, want %q", v, got, want["k@"+v])
		}
	}
	wantListed(t, s, want)
	// Deleting the marker and v3 makes v2 live again, with its status.
	for _, gone := range []string{"m4", "v3"} {
		if _, err := s.DeleteObject(ctx, "b", "k", gone, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
		delete(want, "k@"+gone)
	}
	if got := versionReplication(t, s, "k", ""); got != meta.ReplicationCompleted {
		t.Errorf("v2 live again: Replication = %q, want %q", got, meta.ReplicationCompleted)
	}
	wantListed(t, s, want)
}

// testReplicationSet: SetReplication is a compare and set of the status
// of one version, live, noncurrent or a delete marker, and of nothing
// else.
func testReplicationSet(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	full := versioned("k", "v1", meta.ReplicationPending)
	full.Headers = meta.ContentHeaders{ContentType: "text/plain"}
	full.UserMeta = map[string]string{"a": "b"}
	full.Tags, full.ACL, full.Encryption = "t=1", `[{"g":"x"}]`, sealed(1)
	put(t, s, full)
	put(t, s, versioned("k", "v2", meta.ReplicationPending))
	put(t, s, versioned("other", "v1", meta.ReplicationPending))
	m := marker("b", "gone", "m1", t0)
	m.Replication = meta.ReplicationPending
	put(t, s, m)
	want := map[string]string{"k@v1": meta.ReplicationPending, "k@v2": meta.ReplicationPending,
		"other@v1": meta.ReplicationPending, "gone@m1": meta.ReplicationPending}
	before := map[string]meta.Object{"v1": getVersion(t, s, "k", "v1"), "v2": getVersion(t, s, "k", "v2")}

	set := func(key, versionID, from, status string, wantOK bool) {
		t.Helper()
		ok, err := s.SetReplication(ctx, "b", key, versionID, from, status)
		if err != nil || ok != wantOK {
			t.Fatalf("SetReplication(%q, %q, %q → %q) = %v, %v; want %v", key, versionID, from, status, ok, err, wantOK)
		}
		if ok {
			want[key+"@"+versionID] = status
		}
		wantListed(t, s, want)
	}
	set("k", "v1", meta.ReplicationCompleted, meta.ReplicationFailed, false)  // not its status
	set("k", "v1", "", meta.ReplicationFailed, false)                         // it has one
	set("k", "v9", meta.ReplicationPending, meta.ReplicationCompleted, false) // no such version
	set("nokey", "v1", meta.ReplicationPending, meta.ReplicationCompleted, false)
	set("k", "v1", meta.ReplicationPending, meta.ReplicationCompleted, true) // noncurrent
	set("k", "v2", meta.ReplicationPending, meta.ReplicationFailed, true)    // live
	set("k", "v2", meta.ReplicationPending, meta.ReplicationCompleted, false)
	set("gone", "m1", meta.ReplicationPending, meta.ReplicationCompleted, true) // a delete marker
	put(t, s, versioned("plain", "v1", ""))
	want["plain@v1"] = ""
	set("plain", "v1", "", meta.ReplicationPending, true) // from "" matches no status
	set("plain", "v1", meta.ReplicationPending, "", true) // and "" clears it

	for v, b := range before {
		after := getVersion(t, s, "k", v)
		b.Replication, after.Replication = "", ""
		if !reflect.DeepEqual(after, b) {
			t.Errorf("%s after SetReplication = %+v, want %+v (only the status changes)", v, after, b)
		}
	}
	if _, err := s.DeleteObject(ctx, "b", "k", "v1", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	delete(want, "k@v1")
	set("k", "v1", meta.ReplicationCompleted, meta.ReplicationFailed, false) // gone
	_, err := s.SetReplication(ctx, "nobucket", "k", "v1", "", meta.ReplicationPending)
	wantErr(t, "SetReplication in a missing bucket", err, meta.ErrBucketNotFound)
}

func getVersion(t *testing.T, s meta.Store, key, versionID string) meta.Object {
	t.Helper()
	o, err := s.GetObject(t.Context(), "b", key, versionID)
	if err != nil {
		t.Fatalf("GetObject(%q, %q): %v", key, versionID, err)
	}
	return o
}

// pendingWalk lists the PENDING versions of bucket b after afterKey page
// by page, checking each page against limit and the pages' keys against
// each other, and returns them as key@version.
func pendingWalk(t *testing.T, s meta.Store, afterKey string, limit int) []string {
	t.Helper()
	var got []string
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("limit %d: the pending walk does not end", limit)
		}
		vs, next, err := s.PendingReplication(t.Context(), "b", afterKey, limit)
		if err != nil {
			t.Fatalf("PendingReplication(%q, %d): %v", afterKey, limit, err)
		}
		if pages > 0 && len(vs) == 0 {
			t.Errorf("limit %d: next %q was given, but nothing follows it", limit, afterKey)
		}
		for i, v := range vs {
			if v.Bucket != "b" || v.Replication != meta.ReplicationPending || v.LastModified.IsZero() ||
				!v.DeleteMarker && (v.ETag == "" || v.Size == 0) {
				t.Errorf("limit %d: pending entry %+v lacks a field", limit, v)
			}
			if i >= limit && v.Key != vs[limit-1].Key {
				t.Errorf("limit %d: page of %d past its limit with another key than the last: %v", limit, len(vs), vs)
			}
			if v.Key <= afterKey {
				t.Errorf("limit %d: key %q listed after %q", limit, v.Key, afterKey)
			}
			got = append(got, v.Key+"@"+v.VersionID)
		}
		if len(vs) > 0 && next != vs[len(vs)-1].Key && next != "" {
			t.Errorf("limit %d: next = %q, want the page's last key %q", limit, next, vs[len(vs)-1].Key)
		}
		if next == "" {
			return got
		}
		afterKey = next
	}
}

// testReplicationPending: the PENDING versions, delete markers included,
// by key, oldest version first, live or noncurrent, across pages of
// every size, after a key; a version set COMPLETED is no longer listed.
func testReplicationPending(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	var order []string // the PENDING versions in the order written
	n := 0
	write := func(key string, status string, deleteMarker bool) {
		n++
		o := versioned(key, fmt.Sprintf("v%02d", n), status)
		o.Size = int64(n)
		if deleteMarker {
			o = marker("b", key, o.VersionID, t0)
			o.Replication = status
		}
		put(t, s, o)
		if status == meta.ReplicationPending {
			order = append(order, key+"@"+o.VersionID)
		}
	}
	// Written interleaved, so that the write order of one key is not its
	// versions' order among all: c (three, the newest live), a (a marker
	// latest over a pending version), e (none pending), b (one, live),
	// d (one noncurrent under a version not pending), f (four).
	write("c", meta.ReplicationPending, false)
	write("a", meta.ReplicationPending, false)
	write("c", meta.ReplicationCompleted, false)
	write("e", meta.ReplicationCompleted, false)
	write("c", meta.ReplicationPending, false)
	write("f", meta.ReplicationPending, false)
	write("b", meta.ReplicationPending, false)
	write("d", meta.ReplicationPending, false)
	write("f", meta.ReplicationPending, true)
	write("c", meta.ReplicationPending, false)
	write("a", meta.ReplicationPending, true)
	write("d", "", false)
	write("f", meta.ReplicationPending, false)
	write("f", meta.ReplicationPending, false)
	write("e", meta.ReplicationFailed, true)

	byKey := func(after string) []string {
		var out []string
		for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
			for _, kv := range order {
				if key, _, _ := strings.Cut(kv, "@"); key == k && k > after {
					out = append(out, kv)
				}
			}
		}
		return out
	}
	for _, limit := range []int{1, 2, 3, 4, 5, 100} {
		for _, after := range []string{"", "a", "bb", "f"} {
			if got, want := pendingWalk(t, s, after, limit), byKey(after); !slices.Equal(got, want) {
				t.Errorf("limit %d after %q: pending = %q, want %q", limit, after, got, want)
			}
		}
	}
	// A version set COMPLETED is no longer listed, live or noncurrent.
	for _, kv := range []string{"c@v01", "c@v10", "f@v09"} {
		key, v, _ := strings.Cut(kv, "@")
		if ok, err := s.SetReplication(ctx, "b", key, v, meta.ReplicationPending, meta.ReplicationCompleted); !ok || err != nil {
			t.Fatalf("SetReplication(%s) = %v, %v", kv, ok, err)
		}
		order = slices.DeleteFunc(order, func(s string) bool { return s == kv })
	}
	if got, want := pendingWalk(t, s, "", 2), byKey(""); !slices.Equal(got, want) {
		t.Errorf("after COMPLETED: pending = %q, want %q", got, want)
	}
	_, _, err := s.PendingReplication(ctx, "nobucket", "", 10)
	wantErr(t, "PendingReplication of a missing bucket", err, meta.ErrBucketNotFound)
}

// testUploadReplication: CompleteUpload stores the status of the object
// it is given.
func testUploadReplication(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	p, _ := putPart(t, s, u, 1)
	o := meta.Object{Bucket: "b", Key: "k", VersionID: "v1", UploadID: u.UploadID, Size: p.Size, ETag: "mp-1", LastModified: t0,
		Parts: []meta.Part{p}, Replication: meta.ReplicationPending}
	if _, err := s.CompleteUpload(ctx, o, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if got := versionReplication(t, s, "k", ""); got != meta.ReplicationPending {
		t.Errorf("completed object: Replication = %q, want %q", got, meta.ReplicationPending)
	}
	wantListed(t, s, map[string]string{"k@v1": meta.ReplicationPending})
	if got := pendingWalk(t, s, "", 10); !slices.Equal(got, []string{"k@v1"}) {
		t.Errorf("pending after CompleteUpload = %q", got)
	}
}
