package metamigrate_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// configNames are the bucket configurations a snapshot reads (fill writes
// some of them; the others must be missing on both sides alike).
var configNames = []string{"cors", "lifecycle", "policy", "tagging", "website"}

// snapshot reads everything a client can see of s through meta.Store —
// buckets, configurations, usage, listings, every version, heads, locks,
// uploads and parts, IAM, reservations — as JSON per read, keyed by what
// was read. Two stores a client cannot tell apart have equal snapshots.
func snapshot(t *testing.T, s meta.Store) map[string]string {
	t.Helper()
	ctx := t.Context()
	snap := map[string]string{}
	rec := func(name string, v any, err error) {
		if err != nil {
			v = "error: " + err.Error()
		}
		b, jerr := json.Marshal(v)
		if jerr != nil {
			t.Fatalf("%s: %v", name, jerr)
		}
		if string(b) == "null" {
			b = []byte("[]") // stores differ in nil or empty slices; clients do not see it
		}
		snap[name] = string(b)
	}
	buckets, err := s.ListBuckets(ctx, meta.ListBucketsOptions{})
	rec("buckets", buckets, err)
	for _, b := range buckets {
		p := "bucket " + b.Name + ": "
		got, err := s.GetBucket(ctx, b.Name)
		rec(p+"get", got, err)
		for _, c := range configNames {
			doc, err := s.GetBucketConfig(ctx, b.Name, c)
			rec(p+"config "+c, doc, err)
		}
		used, err := s.BucketUsage(ctx, b.Name)
		rec(p+"usage", used, err)
		for _, d := range []string{"", "/"} {
			var pages []meta.ListPage
			opts := meta.ListOptions{Delimiter: d, Limit: 7}
			for {
				pg, err := s.ListObjects(ctx, b.Name, opts)
				if err != nil {
					rec(p+"list "+d, nil, err)
					break
				}
				pages = append(pages, pg)
				if !pg.Truncated {
					break
				}
				opts.After = pg.NextAfter
			}
			rec(p+"list "+d, pages, nil)
			var vpages []meta.VersionsPage
			vopts := meta.ListVersionsOptions{Delimiter: d, Limit: 5}
			for {
				pg, err := s.ListObjectVersions(ctx, b.Name, vopts)
				if err != nil {
					rec(p+"versions "+d, nil, err)
					break
				}
				vpages = append(vpages, pg)
				if !pg.Truncated {
					break
				}
				vopts.KeyMarker, vopts.VersionIDMarker = pg.NextKeyMarker, pg.NextVersionIDMarker
			}
			rec(p+"versions "+d, vpages, nil)
		}
		snapshotObjects(t, s, b.Name, rec)
		snapshotUploads(t, s, b.Name, rec)
		rs, err := s.ListReservations(ctx, b.Name)
		rec(p+"reservations", rs, err)
		for _, r := range rs {
			got, err := s.GetReservation(ctx, r.ID)
			rec("reservation "+r.ID, got, err)
		}
	}
	snapshotIAM(t, s, rec)
	revoked, cursor, err := s.(meta.SessionRevoker).RevokedSessions(ctx, 0)
	slices.SortFunc(revoked, func(a, b meta.RevokedSession) int { return strings.Compare(a.ID, b.ID) })
	rec("revoked sessions", struct {
		Sessions []meta.RevokedSession
		Cursor   int64
	}{revoked, cursor}, err)
	return snap
}

// snapshotObjects reads every version of bucket (ScanObjects: complete
// objects, inline data included), the versions pending replication, each
// version and each key's latest by
// GetObject, the lock of each version and the parts of multipart ones.
func snapshotObjects(t *testing.T, s meta.Store, bucket string, rec func(string, any, error)) {
	ctx := t.Context()
	var all []meta.Object
	afterKey, afterVersion := "", ""
	for {
		page, err := s.ScanObjects(ctx, bucket, afterKey, afterVersion, 4)
		if err != nil {
			rec("bucket "+bucket+": scan", nil, err)
			return
		}
		all = append(all, page...)
		if len(page) < 4 {
			break
		}
		afterKey, afterVersion = page[len(page)-1].Key, page[len(page)-1].VersionID
	}
	rec("bucket "+bucket+": scan", all, nil)
	pending, next, err := s.PendingReplication(ctx, bucket, "", 1000)
	rec("bucket "+bucket+": pending replication", []any{pending, next}, err)
	b, err := s.GetBucket(ctx, bucket)
	if err != nil {
		t.Fatal(err)
	}
	// InBucket is how a store saves a round trip, not what a client sees:
	// it must agree with the bucket where a store sets it.
	seen := func(o meta.Object) meta.Object {
		if ib := o.InBucket; ib.Known && (ib.Versioning != b.Versioning || ib.ObjectLock != b.ObjectLock) {
			t.Errorf("%s/%s: InBucket %+v, the bucket is %+v", bucket, o.Key, ib, b)
		}
		o.InBucket = meta.BucketState{}
		return o
	}
	for _, o := range all {
		p := fmt.Sprintf("object %s/%s@%s: ", bucket, o.Key, o.VersionID)
		got, err := s.GetObject(ctx, bucket, o.Key, o.VersionID)
		rec(p+"get", seen(got), err)
		latest, err := s.GetObject(ctx, bucket, o.Key, "")
		rec(p+"head latest", seen(latest), err)
		lock, mode, err := s.GetObjectLock(ctx, bucket, o.Key, o.VersionID)
		rec(p+"lock", []any{lock, mode}, err)
		if o.UploadID != "" {
			parts, err := s.ObjectParts(ctx, o.UploadID)
			rec(p+"parts", parts, err)
		}
	}
}

// snapshotUploads reads bucket's uploads in progress and their parts.
func snapshotUploads(t *testing.T, s meta.Store, bucket string, rec func(string, any, error)) {
	ctx := t.Context()
	page, err := s.ListUploads(ctx, bucket, meta.ListUploadsOptions{Limit: 1000})
	rec("bucket "+bucket+": uploads", page, err)
	for _, u := range page.Uploads {
		p := "upload " + u.UploadID + ": "
		got, err := s.GetUpload(ctx, bucket, u.Key, u.UploadID)
		rec(p+"get", got, err)
		parts, trunc, err := s.ListParts(ctx, bucket, u.Key, u.UploadID, 0, 1000)
		rec(p+"parts", []any{parts, trunc}, err)
	}
}

// snapshotIAM reads the account, every entity with its keys, groups,
// members, policies and boundary, and every managed policy.
func snapshotIAM(t *testing.T, s meta.Store, rec func(string, any, error)) {
	ctx := t.Context()
	acct, err := s.IAMAccount(ctx)
	rec("iam account", acct, err)
	gen, err := s.IAMGeneration(ctx)
	rec("iam generation", gen, err)
	pols, err := s.ListPolicies(ctx, meta.IAMListOptions{})
	rec("iam policies", pols, err)
	for _, p := range pols {
		got, err := s.GetPolicy(ctx, p.ARN)
		rec("policy "+p.ARN, got, err)
	}
	var names []string
	for _, kind := range []meta.EntityKind{meta.EntityUser, meta.EntityGroup, meta.EntityRole} {
		es, err := s.ListEntities(ctx, kind, meta.IAMListOptions{})
		rec("iam "+kind.String()+"s", es, err)
		for _, e := range es {
			p := kind.String() + " " + e.Name + ": "
			names = append(names, p)
			got, err := s.GetEntity(ctx, kind, e.Name)
			rec(p+"get", got, err)
			inl, err := s.InlinePolicies(ctx, kind, e.Name)
			rec(p+"inline", inl, err)
			att, err := s.AttachedPolicies(ctx, kind, e.Name)
			rec(p+"attached", att, err)
			switch kind {
			case meta.EntityUser:
				keys, err := s.ListAccessKeys(ctx, e.Name)
				rec(p+"keys", keys, err)
				for _, k := range keys {
					got, err := s.GetAccessKey(ctx, k.ID)
					rec("key "+k.ID, got, err)
				}
				gs, err := s.UserGroups(ctx, e.Name)
				rec(p+"groups", gs, err)
			case meta.EntityGroup:
				ms, err := s.GroupMembers(ctx, e.Name)
				rec(p+"members", ms, err)
			}
		}
	}
	sort.Strings(names)
	rec("iam names", slices.Compact(names), nil)
}

// compareSnapshots fails t for each read whose answer differs.
func compareSnapshots(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for _, d := range diffSnapshots(want, got) {
		t.Errorf("%s: %s", what, d)
	}
	if len(want) < 100 {
		t.Errorf("%s: only %d reads compared: the snapshot reads too little", what, len(want))
	}
}

// diffSnapshots describes each read whose answer differs.
func diffSnapshots(want, got map[string]string) []string {
	keys := slices.Collect(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var diffs []string
	for _, k := range keys {
		if want[k] != got[k] {
			diffs = append(diffs, fmt.Sprintf("%s differs:\nsource %s\ntarget %s", k, want[k], got[k]))
		}
	}
	return diffs
}
