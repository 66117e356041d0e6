package metatest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Cases of versions and delete markers (ADR 0012).
var versionCases = []testCase{
	{"Versions/DeleteMarker", testVersionsDeleteMarker},
	{"Versions/NullReplaced", testVersionsNullReplaced},
	{"Versions/ListPages", testVersionsListPages},
	{"Versions/Model", testVersionsModel},
	{"Versions/LockModel", testVersionsLockModel},
}

func marker(bucket, key, versionID string, at time.Time) meta.Object {
	return meta.Object{Bucket: bucket, Key: key, VersionID: versionID, DeleteMarker: true, LastModified: at}
}

func listVersions(t *testing.T, s meta.Store, bucket string, opts meta.ListVersionsOptions) meta.VersionsPage {
	t.Helper()
	p, err := s.ListObjectVersions(t.Context(), bucket, opts)
	if err != nil {
		t.Fatalf("ListObjectVersions(%+v): %v", opts, err)
	}
	return p
}

// walkVersions lists every version of bucket "b" page by page (limit per
// page) through the next markers; more than n+1 pages fail the test.
func walkVersions(t *testing.T, s meta.Store, limit, n int) []string {
	t.Helper()
	var got []string
	opts := meta.ListVersionsOptions{Limit: limit}
	for pages := 0; ; pages++ {
		if pages > n+1 {
			t.Fatalf("limit %d: the version walk does not end", limit)
		}
		p := listVersions(t, s, "b", opts)
		got = append(got, versionIDs(p.Versions)...)
		if !p.Truncated {
			return got
		}
		opts.KeyMarker, opts.VersionIDMarker = p.NextKeyMarker, p.NextVersionIDMarker
	}
}

// versionIDs renders a page's versions as key@id, a marker as key@id(DM),
// the latest with a *.
func versionIDs(vs []meta.VersionSummary) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Key + "@" + v.VersionID
		if v.DeleteMarker {
			out[i] += "(DM)"
		}
		if v.IsLatest {
			out[i] += "*"
		}
	}
	return out
}

func testVersionsDeleteMarker(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	v1 := object("b", "d/k", newBlob())
	v1.VersionID = "v1"
	put(t, s, v1)
	wantFreed(t, "put a delete marker", put(t, s, marker("b", "d/k", "m1", t0.Add(time.Second))))

	_, err := s.GetObject(ctx, "b", "d/k", "")
	var dm *meta.DeleteMarkerError
	if !errors.As(err, &dm) || dm.VersionID != "m1" || !errors.Is(err, meta.ErrObjectNotFound) {
		t.Fatalf("GetObject(latest marker) = %v, want a DeleteMarkerError of m1 that is ErrObjectNotFound", err)
	}
	if !dm.LastModified.Equal(t0.Add(time.Second)) {
		t.Errorf("marker LastModified = %v", dm.LastModified)
	}
	if _, err := s.GetObject(ctx, "b", "d/k", "m1"); !errors.As(err, &dm) || dm.VersionID != "m1" {
		t.Errorf("GetObject(m1) = %v, want a DeleteMarkerError", err)
	}
	got, err := s.GetObject(ctx, "b", "d/k", "v1")
	if err != nil {
		t.Fatalf("GetObject(v1): %v", err)
	}
	checkObject(t, got, v1)
	for _, d := range []string{"", "/"} {
		page, err := s.ListObjects(ctx, "b", meta.ListOptions{Delimiter: d, Limit: 10})
		if err != nil || len(page.Objects)+len(page.CommonPrefixes) != 0 {
			t.Errorf("ListObjects(delimiter %q) = %+v, %v; a key under a delete marker is not listed", d, page, err)
		}
	}
	if got := versionIDs(listVersions(t, s, "b", meta.ListVersionsOptions{Limit: 10}).Versions); !slices.Equal(got, []string{"d/k@m1(DM)*", "d/k@v1"}) {
		t.Errorf("versions = %q", got)
	}
	// A condition sees the marker as no object.
	_, err = s.PutObject(ctx, object("b", "d/k", newBlob()), meta.Condition{IfMatch: "etag-x"})
	wantErr(t, "If-Match over a delete marker", err, meta.ErrObjectNotFound)
	_, err = s.DeleteObject(ctx, "b", "d/k", "", meta.Condition{IfMatchAny: true})
	wantErr(t, "If-Match: * delete over a delete marker", err, meta.ErrPreconditionFailed)
	wantErr(t, "DeleteBucket with a marker and a version", errOnly(s.DeleteBucket(ctx, "b")), meta.ErrBucketNotEmpty)
	scan, err := s.ScanObjects(ctx, "b", "", "", 10)
	if err != nil || len(scan) != 2 || !scan[0].DeleteMarker || !scan[0].IsLatest || scan[1].DeleteMarker || scan[1].IsLatest {
		t.Errorf("ScanObjects = %+v, %v; want the marker (latest) then v1", scan, err)
	}
	unref, err := s.UnreferencedBlobs(ctx, []string{v1.BlobID})
	if err != nil || len(unref) != 0 {
		t.Errorf("UnreferencedBlobs(noncurrent v1) = %q, %v", unref, err)
	}

	// Removing the marker makes v1 the latest again, listed in its directory.
	wantFreed(t, "delete the marker", errFree(t)(s.DeleteObject(ctx, "b", "d/k", "m1", meta.Condition{})))
	checkObject(t, get(t, s, "b", "d/k"), v1)
	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Delimiter: "/", Limit: 10})
	if err != nil || !slices.Equal(page.CommonPrefixes, []string{"d/"}) {
		t.Errorf("ListObjects after the marker went = %+v, %v", page, err)
	}
	// Another marker over v1, then the delete of the latest (the marker).
	put(t, s, marker("b", "d/k", "m2", t0))
	del(t, s, "b", "d/k")
	checkObject(t, get(t, s, "b", "d/k"), v1)
	wantFreed(t, "delete v1", del(t, s, "b", "d/k"), v1.BlobID)
	wantMissing(t, s, "b", "d/k")
	if err := errOnly(s.DeleteBucket(ctx, "b")); err != nil {
		t.Errorf("DeleteBucket when empty: %v", err)
	}
}

func errFree(t *testing.T) func([]string, error) []string {
	return func(freed []string, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return freed
	}
}

func testVersionsNullReplaced(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	if b, err := s.GetBucket(ctx, "b"); err != nil || b.Versioning != meta.VersioningEnabled {
		t.Errorf("GetBucket = %+v, %v; want versioning Enabled", b, err)
	}
	wantErr(t, "SetBucketVersioning(missing)", s.SetBucketVersioning(ctx, "nope", meta.VersioningEnabled), meta.ErrBucketNotFound)
	a := object("b", "k", newBlob()) // the null version
	put(t, s, a)
	v1 := object("b", "k", newBlob())
	v1.VersionID = "v1"
	put(t, s, v1)
	if err := s.SetBucketVersioning(ctx, "b", meta.VersioningSuspended); err != nil {
		t.Fatal(err)
	}
	bs, err := s.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil || len(bs) != 1 || bs[0].Versioning != meta.VersioningSuspended {
		t.Errorf("ListBuckets = %+v, %v; want versioning Suspended", bs, err)
	}
	b := object("b", "k", newBlob())
	wantFreed(t, "a null version replaces the noncurrent null version", put(t, s, b), a.BlobID)
	if got := versionIDs(listVersions(t, s, "b", meta.ListVersionsOptions{Limit: 10}).Versions); !slices.Equal(got, []string{"k@null*", "k@v1"}) {
		t.Errorf("versions = %q", got)
	}
	// The null version marks a position like any other.
	if got := versionIDs(listVersions(t, s, "b", meta.ListVersionsOptions{KeyMarker: "k", VersionIDMarker: meta.NullVersion, Limit: 10}).Versions); !slices.Equal(got, []string{"k@v1"}) {
		t.Errorf("versions after k@null = %q", got)
	}
	wantFreed(t, "a null marker replaces the live null version", put(t, s, marker("b", "k", meta.NullVersion, t0)), b.BlobID)
	if got := versionIDs(listVersions(t, s, "b", meta.ListVersionsOptions{Limit: 10}).Versions); !slices.Equal(got, []string{"k@null(DM)*", "k@v1"}) {
		t.Errorf("versions = %q", got)
	}
	c := object("b", "k", newBlob())
	wantFreed(t, "a null version replaces the null marker", put(t, s, c))
	checkObject(t, get(t, s, "b", "k"), c)
	if got := versionIDs(listVersions(t, s, "b", meta.ListVersionsOptions{Limit: 10}).Versions); !slices.Equal(got, []string{"k@null*", "k@v1"}) {
		t.Errorf("versions = %q", got)
	}
}

func testVersionsListPages(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	now := t0
	for _, k := range []string{"a", "a/1", "a/2", "b/x/y", "c"} {
		for i := range 3 {
			o := object("b", k, newBlob())
			o.VersionID, o.LastModified = fmt.Sprintf("%s-%d", k, i), now
			now = now.Add(time.Millisecond)
			if i == 2 && k == "a/2" {
				o = marker("b", k, o.VersionID, now)
			}
			put(t, s, o)
		}
	}
	all := versionIDs(listVersions(t, s, "b", meta.ListVersionsOptions{Limit: 100}).Versions)
	want := []string{"a@a-2*", "a@a-1", "a@a-0", "a/1@a/1-2*", "a/1@a/1-1", "a/1@a/1-0", "a/2@a/2-2(DM)*", "a/2@a/2-1", "a/2@a/2-0",
		"b/x/y@b/x/y-2*", "b/x/y@b/x/y-1", "b/x/y@b/x/y-0", "c@c-2*", "c@c-1", "c@c-0"}
	if !slices.Equal(all, want) {
		t.Fatalf("versions = %q\nwant %q", all, want)
	}
	for limit := 1; limit <= 4; limit++ {
		if got := walkVersions(t, s, limit, len(want)); !slices.Equal(got, want) {
			t.Errorf("limit %d: walk = %q", limit, got)
		}
	}
	p := listVersions(t, s, "b", meta.ListVersionsOptions{Delimiter: "/", Limit: 4})
	if got := versionIDs(p.Versions); !slices.Equal(got, []string{"a@a-2*", "a@a-1", "a@a-0"}) || !slices.Equal(p.CommonPrefixes, []string{"a/"}) ||
		!p.Truncated || p.NextKeyMarker != "a/" || p.NextVersionIDMarker != "" {
		t.Errorf("delimited page = %q %+v", got, p)
	}
	p = listVersions(t, s, "b", meta.ListVersionsOptions{Delimiter: "/", KeyMarker: "a/", Limit: 4})
	if got := versionIDs(p.Versions); !slices.Equal(got, []string{"c@c-2*", "c@c-1", "c@c-0"}) || !slices.Equal(p.CommonPrefixes, []string{"b/"}) || p.Truncated {
		t.Errorf("delimited page after a/ = %q %+v", got, p)
	}
	p = listVersions(t, s, "b", meta.ListVersionsOptions{Prefix: "a/", KeyMarker: "a/1", VersionIDMarker: "a/1-1", Limit: 2})
	if got := versionIDs(p.Versions); !slices.Equal(got, []string{"a/1@a/1-0", "a/2@a/2-2(DM)*"}) || !p.Truncated ||
		p.NextKeyMarker != "a/2" || p.NextVersionIDMarker != "a/2-2" {
		t.Errorf("page after a/1@a/1-1 = %q %+v", got, p)
	}
	p = listVersions(t, s, "b", meta.ListVersionsOptions{Prefix: "a/", KeyMarker: "a/1", Limit: 10})
	if got := versionIDs(p.Versions); !slices.Equal(got, []string{"a/2@a/2-2(DM)*", "a/2@a/2-1", "a/2@a/2-0"}) || p.Truncated {
		t.Errorf("page after key a/1 = %q %+v", got, p)
	}
	// A version marker must name a version of the key marker: another
	// key's version, or none, gives no position.
	for _, vm := range []string{"a/2-1", "nope", "null"} {
		if _, err := s.ListObjectVersions(ctx, "b", meta.ListVersionsOptions{KeyMarker: "a/1", VersionIDMarker: vm, Limit: 2}); !errors.Is(err, meta.ErrVersionMarker) {
			t.Errorf("ListObjectVersions(a/1, version marker %q) = %v, want ErrVersionMarker", vm, err)
		}
	}
	// A key marker that is a common prefix skips its group: its version
	// marker is not looked at.
	p = listVersions(t, s, "b", meta.ListVersionsOptions{Delimiter: "/", KeyMarker: "a/", VersionIDMarker: "nope", Limit: 1})
	if len(p.Versions) != 0 || !slices.Equal(p.CommonPrefixes, []string{"b/"}) {
		t.Errorf("page after common prefix a/ with a version marker = %+v", p)
	}
	if _, err := s.ListObjectVersions(ctx, "nope", meta.ListVersionsOptions{Limit: 1}); !errors.Is(err, meta.ErrBucketNotFound) {
		t.Errorf("ListObjectVersions(missing bucket) = %v", err)
	}
}

// refVersion is one version in the model of testVersionsModel.
type refVersion struct {
	id     string
	marker bool
	blob   string
	lock   meta.ObjectLock // its retention and legal hold (lock model only)
}

// testVersionsModel runs random puts, delete markers, deletes of the
// latest and of given versions on a few keys against a model (each key's
// versions, newest first), checking reads, listings, version listings and
// freed blobs as it goes.
func testVersionsModel(t *testing.T, s meta.Store) { runVersionsModel(t, s, false) }

// testVersionsLockModel is testVersionsModel on a bucket with object lock:
// puts carry retentions (GOVERNANCE, COMPLIANCE; unexpired or expired) and
// legal holds, holds are placed and released, and removals come with or
// without the GOVERNANCE bypass; the model predicts which removals fail
// with meta.ErrObjectLocked (and change nothing) and every version's lock.
func testVersionsLockModel(t *testing.T, s meta.Store) { runVersionsModel(t, s, true) }

func runVersionsModel(t *testing.T, s meta.Store, locked bool) {
	ctx := t.Context()
	if locked {
		mkLockBucket(t, s, "b")
	} else {
		mkBucket(t, s, "b")
	}
	rng := rand.New(rand.NewPCG(7, 20))
	keys := []string{"a", "a/b", "a/c/d", "b", "é/x"}
	model := map[string][]refVersion{}
	now := t0
	steps := 1500
	if testing.Short() {
		steps = 300
	}
	kinds := 10
	if locked {
		kinds = 12 // legal hold steps
	}
	for step := 1; step <= steps; step++ {
		key := keys[rng.IntN(len(keys))]
		vs := model[key]
		now = now.Add(time.Millisecond)
		id := meta.NullVersion
		if rng.IntN(3) > 0 {
			id = fmt.Sprintf("v%04d", step)
		}
		cond := meta.Condition{BypassGovernance: locked && rng.IntN(2) == 0}
		// refused says whether the model forbids removing version v.
		refused := func(v refVersion) bool { return locked && modelProtects(v.lock, cond.BypassGovernance) }
		var wantFree []string
		var wantErr, err error
		var freed []string
		what := ""
		// replace makes nv the latest version of key, removing a version
		// of the same ID, unless that version is protected.
		replace := func(nv refVersion) {
			if i := slices.IndexFunc(vs, func(v refVersion) bool { return v.id == nv.id }); i >= 0 {
				if refused(vs[i]) {
					wantErr = meta.ErrObjectLocked
					return
				}
				wantFree = append(wantFree, vs[i].blob)
			}
			model[key] = append([]refVersion{nv}, slices.DeleteFunc(vs, func(v refVersion) bool { return v.id == nv.id })...)
		}
		switch r := rng.IntN(kinds); {
		case r < 4:
			o := object("b", key, newBlob())
			o.VersionID, o.LastModified = id, now
			nv := refVersion{id: id, blob: o.BlobID}
			if locked {
				nv.lock = randomLock(rng)
				o.Lock = &nv.lock
			}
			what = fmt.Sprintf("put %s@%s lock %+v bypass %v", key, id, nv.lock, cond.BypassGovernance)
			freed, err = s.PutObject(ctx, o, cond)
			replace(nv)
		case r < 6:
			what = fmt.Sprintf("marker %s@%s bypass %v", key, id, cond.BypassGovernance)
			freed, err = s.PutObject(ctx, marker("b", key, id, now), cond)
			replace(refVersion{id: id, marker: true})
		case r < 8:
			what = fmt.Sprintf("delete latest of %s bypass %v", key, cond.BypassGovernance)
			freed, err = s.DeleteObject(ctx, "b", key, "", cond)
			switch {
			case len(vs) == 0:
			case refused(vs[0]):
				wantErr = meta.ErrObjectLocked
			default:
				wantFree = append(wantFree, vs[0].blob)
				model[key] = vs[1:]
			}
		case r < 10:
			if len(vs) == 0 {
				continue
			}
			v := vs[rng.IntN(len(vs))]
			what = fmt.Sprintf("delete %s@%s bypass %v", key, v.id, cond.BypassGovernance)
			freed, err = s.DeleteObject(ctx, "b", key, v.id, cond)
			if refused(v) {
				wantErr = meta.ErrObjectLocked
				break
			}
			wantFree = append(wantFree, v.blob)
			model[key] = slices.DeleteFunc(vs, func(x refVersion) bool { return x.id == v.id })
		default: // a legal hold placed or released
			i := rng.IntN(len(vs) + 1)
			if i == len(vs) || vs[i].marker {
				continue
			}
			on, target := rng.IntN(2) == 0, vs[i].id
			if i == 0 && rng.IntN(2) == 0 {
				target = "" // the latest
			}
			what = fmt.Sprintf("legal hold %v on %s@%q", on, key, target)
			err = s.PutObjectLegalHold(ctx, "b", key, target, on)
			vs[i].lock.LegalHold, vs[i].lock.HoldSet = on, true
		}
		if !errors.Is(err, wantErr) {
			t.Fatalf("step %d: %s: %v, want %v", step, what, err, wantErr)
		}
		wantFreed(t, fmt.Sprintf("step %d: %s", step, what), freed, slices.DeleteFunc(wantFree, func(b string) bool { return b == "" })...)
		if step%20 == 0 || step == steps {
			if !checkVersionModel(t, s, keys, model, rng, locked) {
				t.Fatalf("after step %d (%s)", step, what)
			}
		}
	}
}

func checkVersionModel(t *testing.T, s meta.Store, keys []string, model map[string][]refVersion, rng *rand.Rand, locked bool) bool {
	t.Helper()
	ctx := t.Context()
	ok := true
	var live, all []string
	sorted := slices.Clone(keys)
	sort.Strings(sorted)
	for _, k := range sorted {
		vs := model[k]
		for i, v := range vs {
			e := k + "@" + v.id
			if v.marker {
				e += "(DM)"
			}
			if i == 0 {
				e += "*"
			}
			all = append(all, e)
			o, err := s.GetObject(ctx, "b", k, v.id)
			var dm *meta.DeleteMarkerError
			switch {
			case v.marker && (!errors.As(err, &dm) || dm.VersionID != v.id):
				t.Errorf("GetObject(%q, %q) = %v, want a delete marker", k, v.id, err)
				ok = false
			case !v.marker && (err != nil || o.BlobID != v.blob):
				t.Errorf("GetObject(%q, %q) = %+v, %v; want blob %s", k, v.id, o, err, v.blob)
				ok = false
			}
			if locked && !v.marker {
				l, _, err := s.GetObjectLock(ctx, "b", k, v.id)
				if err != nil || !sameLock(l, v.lock) {
					t.Errorf("GetObjectLock(%q, %q) = %+v, %v; want %+v", k, v.id, l, err, v.lock)
					ok = false
				}
			}
		}
		o, err := s.GetObject(ctx, "b", k, "")
		switch {
		case len(vs) == 0:
			if !errors.Is(err, meta.ErrObjectNotFound) || errors.As(err, new(*meta.DeleteMarkerError)) {
				t.Errorf("GetObject(%q) = %v, want plain not found", k, err)
				ok = false
			}
		case vs[0].marker:
			var dm *meta.DeleteMarkerError
			if !errors.As(err, &dm) || dm.VersionID != vs[0].id {
				t.Errorf("GetObject(%q) = %v, want delete marker %s", k, err, vs[0].id)
				ok = false
			}
		default:
			live = append(live, k)
			if err != nil || o.VersionID != vs[0].id || o.BlobID != vs[0].blob {
				t.Errorf("GetObject(%q) = %+v, %v; want %s", k, o, err, vs[0].id)
				ok = false
			}
		}
	}
	limit := 1 + rng.IntN(5)
	if got := walkVersions(t, s, limit, len(all)); !slices.Equal(got, all) {
		t.Errorf("version walk (limit %d) = %q\nwant %q", limit, got, all)
		ok = false
	}
	for _, lo := range []meta.ListOptions{{Limit: 100}, {Delimiter: "/", Limit: 100}, {Prefix: "a/", Delimiter: "/", Limit: 100}} {
		page, err := s.ListObjects(ctx, "b", lo)
		if err != nil {
			t.Fatal(err)
		}
		if !checkPage(t, "live listing "+describe(lo), page, Reference(live, lo), lo) {
			ok = false
		}
	}
	return ok
}
