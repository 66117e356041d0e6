package crash

// The check of a versioned or object-lock bucket after a restart: the
// listing of versions against the model, every version's bytes by ID,
// the latest by GET, and in the lock bucket the locks.

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// listed is a version as ListObjectVersions lists it.
type listed struct {
	id             string
	marker, latest bool
	etag           string
	size           int64
}

func (l listed) String() string {
	if l.marker {
		return "delete marker " + l.id
	}
	return fmt.Sprintf("version %s (%d bytes, etag %s)", l.id, l.size, l.etag)
}

// is reports whether the listed entry is the version x (ID aside).
func (l listed) is(x *vver) bool {
	return l.marker == x.marker && (x.marker || (x.v.etag == "" || l.etag == x.v.etag) && l.size == x.v.size)
}

// listVersions lists every version of the bucket, a few per page so that
// the key and version-id markers are used. The SDK returns versions and
// delete markers in two lists, which loses their order, so the listing's
// XML is read as the server sent it.
func (h *harness) listVersions(ctx context.Context, b *vbucket) (map[string][]listed, error) {
	raw := &rawBody{c: h.http}
	client := newClient("http://"+h.servers[0].addr, raw)
	out := map[string][]listed{}
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(b.name), MaxKeys: aws.Int32(50)}
	for {
		page, err := client.ListObjectVersions(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list versions of %s after restart: %w", b.name, err)
		}
		var doc struct {
			Entries []struct {
				XMLName   xml.Name
				Key       string
				VersionID string `xml:"VersionId"`
				IsLatest  bool
				ETag      string
				Size      int64
			} `xml:",any"`
		}
		if err := xml.Unmarshal(raw.body, &doc); err != nil {
			return nil, fmt.Errorf("list versions of %s: %w", b.name, err)
		}
		n := 0
		for _, e := range doc.Entries {
			if e.XMLName.Local != "Version" && e.XMLName.Local != "DeleteMarker" {
				continue
			}
			n++
			out[e.Key] = append(out[e.Key], listed{id: e.VersionID, latest: e.IsLatest, marker: e.XMLName.Local == "DeleteMarker",
				etag: strings.Trim(e.ETag, `"`), size: e.Size})
		}
		if n != len(page.Versions)+len(page.DeleteMarkers) {
			return nil, fmt.Errorf("list versions of %s: read %d entries, the SDK %d", b.name, n, len(page.Versions)+len(page.DeleteMarkers))
		}
		if !aws.ToBool(page.IsTruncated) {
			return out, nil
		}
		in.KeyMarker, in.VersionIdMarker = page.NextKeyMarker, page.NextVersionIdMarker
	}
}

// rawBody keeps the body of the last answer it passed on.
type rawBody struct {
	c    *timedClient
	body []byte
}

func (r *rawBody) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.c.Do(req)
	if err != nil {
		return resp, err
	}
	r.body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(r.body))
	return resp, err
}

// verifyVersions checks a versioned bucket after a restart and resolves
// the operations that were in flight at the kill.
func (h *harness) verifyVersions(ctx context.Context, b *vbucket) error {
	all, err := h.listVersions(ctx, b)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, k := range b.keys {
		known[k.name] = true
	}
	for name, vs := range all {
		if !known[name] {
			h.res.violate("after restart %s lists %d versions of %s, a key never written", b.name, len(vs), name)
		}
	}
	err = eachKey(b.keys, func(k *key) error { return h.checkVersions(ctx, b, k, all[k.name]) })
	if err != nil {
		return err
	}
	return h.checkLiveListing(ctx, b)
}

// resolve settles k's pending operation by what the listing shows.
func (h *harness) resolve(k *key, got []listed) {
	p := k.pending
	if p == nil {
		return
	}
	k.pending = nil
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.add != nil {
		if len(got) == len(k.vers)+1 && k.find(got[0].id) < 0 && got[0].is(p.add) {
			p.add.id = got[0].id
			if !p.add.marker {
				p.add.v.ack(&got[0].etag)
			}
			k.vers = append(k.vers, p.add)
			h.res.UnackPresent++
		} else {
			h.res.UnackAbsent++
		}
		return
	}
	if slices.ContainsFunc(got, func(l listed) bool { return l.id == p.remove }) {
		h.res.UnackAbsent++
	} else {
		k.vers = slices.Delete(k.vers, k.find(p.remove), k.find(p.remove)+1)
		h.res.UnackPresent++
	}
}

// checkVersions compares one key's listed versions with the model, then
// reads each version by ID and the latest, and checks the locks.
func (h *harness) checkVersions(ctx context.Context, b *vbucket, k *key, got []listed) error {
	h.resolve(k, got)
	want := slices.Clone(k.vers)
	slices.Reverse(want) // newest first, as listed
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = got[i].id == want[i].id && got[i].is(want[i]) && got[i].latest == (i == 0)
	}
	if !same {
		h.mu.Lock()
		defer h.mu.Unlock()
		k.broken = true
		for _, w := range want {
			if !slices.ContainsFunc(got, func(l listed) bool { return l.id == w.id }) {
				h.damaged(w.v, false)
				h.res.violate("%s/%s after restart: acknowledged %s is gone", b.name, k.name, w)
			}
		}
		for _, l := range got {
			if k.find(l.id) < 0 {
				h.res.violate("%s/%s after restart: %s was never acknowledged nor in flight", b.name, k.name, l)
			}
		}
		h.res.violate("%s/%s after restart: listed %v, want (newest first) %v", b.name, k.name, got, want)
		return nil
	}
	for _, w := range want {
		if w.marker {
			h.mu.Lock()
			h.res.MarkersVerified++
			h.mu.Unlock()
			continue
		}
		obs, err := h.getVersion(ctx, b.name, k.name, w.id, w.enc())
		if err != nil {
			return h.unreadable(k, w.enc(), fmt.Sprintf("GET %s/%s version %s", b.name, k.name, w.id), err)
		}
		if !h.checkAfterRestart(b, k, obs, w, w.id) {
			return nil
		}
		if err := h.checkHead(ctx, b.name, k, w.id, w.v); err != nil || k.broken {
			return err
		}
	}
	var latest *vver
	if len(want) > 0 {
		latest = want[0]
	}
	obs, err := h.getVersion(ctx, b.name, k.name, "", latest.enc())
	if err != nil {
		return h.unreadable(k, latest.enc(), fmt.Sprintf("GET %s/%s", b.name, k.name), err)
	}
	if !h.checkAfterRestart(b, k, obs, latest, "") {
		return nil
	}
	if b.lock {
		return h.checkLocks(ctx, b, k)
	}
	return nil
}

// checkAfterRestart compares a GET of k by version ID id (or the latest)
// with x; a mismatch is a lost or corrupt version.
func (h *harness) checkAfterRestart(b *vbucket, k *key, obs observed, x *vver, id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.checkGet(b, k, obs, x, id, "after restart") {
		if !obs.torn { // a torn body is counted corrupt by checkGet
			var v *version
			if x != nil && !x.marker {
				v = x.v
			}
			h.damaged(v, obs.wrongBytes(v))
		}
		k.broken = true
		return false
	}
	if id != "" {
		h.res.VersionsVerified++
	}
	return true
}

// checkLiveListing: ListObjectsV2 of a versioned bucket lists exactly the
// keys whose newest version is not a delete marker.
func (h *harness) checkLiveListing(ctx context.Context, b *vbucket) error {
	p := s3.NewListObjectsV2Paginator(h.client, &s3.ListObjectsV2Input{Bucket: aws.String(b.name)})
	got := map[string]bool{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list %s after restart: %w", b.name, err)
		}
		for _, o := range page.Contents {
			got[aws.ToString(o.Key)] = true
		}
	}
	for _, k := range b.keys {
		if k.broken {
			continue
		}
		live := len(k.vers) > 0 && !k.vers[len(k.vers)-1].marker
		if got[k.name] != live {
			h.res.violate("after restart ListObjectsV2 of %s lists %s: %v; its newest version %v", b.name, k.name, got[k.name], k.vers[len(k.vers)-1:])
		}
	}
	return nil
}

// checkLocks: every locked version of k still has its lock, and
// DeleteObject and DeleteObjects of it are refused with AccessDenied. The
// first GOVERNANCE-only version of a restart is then deleted with
// x-amz-bypass-governance-retention, which must succeed.
func (h *harness) checkLocks(ctx context.Context, b *vbucket, k *key) error {
	for _, x := range slices.Clone(k.vers) {
		if !x.lock.locked() {
			continue
		}
		id := aws.String(x.id)
		ret, err := h.client.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(b.name), Key: aws.String(k.name), VersionId: id})
		mode, until := "", time.Time{}
		switch {
		case err == nil:
			mode, until = string(ret.Retention.Mode), aws.ToTime(ret.Retention.RetainUntilDate)
		case statusOf(err) != 404:
			return fmt.Errorf("GetObjectRetention %s/%s version %s: %w", b.name, k.name, x.id, err)
		}
		hold, err := h.client.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String(b.name), Key: aws.String(k.name), VersionId: id})
		on := false
		switch {
		case err == nil:
			on = hold.LegalHold.Status == types.ObjectLockLegalHoldStatusOn
		case statusOf(err) != 404:
			return fmt.Errorf("GetObjectLegalHold %s/%s version %s: %w", b.name, k.name, x.id, err)
		}
		if mode != x.lock.mode || on != x.lock.hold || mode != "" && until.Sub(x.lock.until).Abs() > time.Second {
			h.mu.Lock()
			h.res.violate("%s/%s %s after restart: lock %q until %v", b.name, k.name, x, lockSpec{mode: mode, hold: on}, until)
			h.mu.Unlock()
		}
		if protected, sure := x.lock.protects(time.Now(), false); !protected || !sure {
			continue // the retention has ended (or is ending): the workload deletes it
		}
		_, err = h.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.name), Key: aws.String(k.name), VersionId: id})
		// DeleteObjects is the other way to delete a version.
		multi, merr := h.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(b.name),
			Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(k.name), VersionId: id}}}})
		if merr != nil {
			return fmt.Errorf("DeleteObjects %s/%s version %s after restart: %w", b.name, k.name, x.id, merr)
		}
		h.mu.Lock()
		switch {
		case err == nil:
			h.res.violate("%s/%s after restart: DELETE of %s succeeded", b.name, k.name, x)
		case !isAccessDenied(err):
			h.res.violate("%s/%s after restart: DELETE of %s: %v, want 403 AccessDenied", b.name, k.name, x, err)
		case len(multi.Deleted) != 0 || len(multi.Errors) != 1 || aws.ToString(multi.Errors[0].Code) != "AccessDenied":
			h.res.violate("%s/%s after restart: DeleteObjects of %s: deleted %d, errors %d (want one AccessDenied)",
				b.name, k.name, x, len(multi.Deleted), len(multi.Errors))
		default:
			h.res.LockedVerified++
		}
		if err == nil || len(multi.Deleted) != 0 {
			k.vers = slices.DeleteFunc(k.vers, func(y *vver) bool { return y == x })
		}
		bypass := x.lock.mode == "GOVERNANCE" && !x.lock.hold && !h.bypassed
		h.bypassed = h.bypassed || bypass
		h.mu.Unlock()
		if bypass {
			h.vremove(ctx, b, k, x.id, true)
			if k.pending != nil {
				return fmt.Errorf("DELETE of %s/%s version %s with bypass: no answer", b.name, k.name, x.id)
			}
			if k.find(x.id) < 0 {
				h.mu.Lock()
				h.res.BypassDeleted++
				h.mu.Unlock()
			}
		}
	}
	return nil
}
