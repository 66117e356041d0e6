package crash

// The versioned and object-lock buckets: the model of a key's versions and
// delete markers, and the workload's operations on them. Their check after
// a restart is in vverify.go.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// lockSpec is the object lock a version was written with.
type lockSpec struct {
	mode  string    // "", "GOVERNANCE" or "COMPLIANCE"
	until time.Time // the retention's retain-until date, when mode is set
	hold  bool      // legal hold ON
}

func (l lockSpec) locked() bool { return l.mode != "" || l.hold }

// lockMargin: a retention that ends within lockMargin of a request may or
// may not protect the version when the server looks (request latency,
// the date's precision on the wire).
const lockMargin = 5 * time.Second

// protects reports whether the lock protects the version from a
// DeleteObject sent at t (with the governance bypass or not), and whether
// that is sure: a retention ending within lockMargin of t may go either way.
func (l lockSpec) protects(t time.Time, bypass bool) (protected, sure bool) {
	switch {
	case l.hold:
		return true, true
	case l.mode == "" || l.mode == "GOVERNANCE" && bypass:
		return false, true
	case l.until.Sub(t) > lockMargin:
		return true, true
	case t.Sub(l.until) > lockMargin:
		return false, true
	}
	return false, false
}

func (l lockSpec) String() string {
	s := l.mode
	if l.mode != "" {
		s += " until " + l.until.Format(time.TimeOnly)
	}
	if l.hold {
		s += "+hold"
	}
	return strings.TrimPrefix(s, "+")
}

// vver is one version of a key in a versioned bucket: an object (v) or a
// delete marker.
type vver struct {
	id     string
	marker bool
	v      *version
	lock   lockSpec
}

func (x *vver) String() string {
	if x.marker {
		return "delete marker " + x.id
	}
	s := fmt.Sprintf("version %s (%s)", x.id, x.v)
	if x.lock.locked() {
		s += " locked " + x.lock.String()
	}
	return s
}

// enc is the encryption to read x with (none for a delete marker or
// nil).
func (x *vver) enc() encSpec {
	if x == nil || x.marker {
		return encSpec{}
	}
	return x.v.enc
}

// vop is a mutation of a versioned key whose outcome is unknown: it adds
// a version or marker (whose ID was never returned), or removes the
// version remove.
type vop struct {
	add    *vver
	remove string
}

// vbucket is a versioned bucket (object lock enabled when lock is set)
// and its keys.
type vbucket struct {
	name string
	lock bool
	keys []*key
}

// maxVersions caps the versions of a key: beyond it the workload removes
// versions (where the lock lets it) instead of adding them.
const maxVersions = 10

func newVBucket(name string, lock bool, n int) *vbucket {
	b := &vbucket{name: name, lock: lock}
	for i := range n {
		b.keys = append(b.keys, &key{name: fmt.Sprintf("%s%02d/obj/%03d", name[len(name)-1:], i%max(n/2, 1), i)})
	}
	return b
}

// find returns the index of the version id in k.vers, or -1.
func (k *key) find(id string) int {
	return slices.IndexFunc(k.vers, func(x *vver) bool { return x.id == id })
}

// vsettle records the outcome of a mutation of versioned key k: on success
// the version op.add gets the ID the server returned, or op.remove goes.
func (h *harness) vsettle(b *vbucket, k *key, op *vop, id string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.res.VAcked++
		if op.remove != "" {
			if i := k.find(op.remove); i >= 0 {
				k.vers = slices.Delete(k.vers, i, i+1)
			}
			h.res.VAckedRemoves++
			break
		}
		switch {
		case id == "" || id == "null":
			h.res.violate("%s/%s: %v acknowledged with version ID %q", b.name, k.name, op.add, id)
			k.broken = true
		case k.find(id) >= 0:
			h.res.violate("%s/%s: version ID %s returned twice", b.name, k.name, id)
			k.broken = true
		}
		op.add.id = id
		k.vers = append(k.vers, op.add)
		if op.add.marker {
			h.res.VAckedMarkers++
		} else {
			h.res.VAckedVersions++
			h.ackedEnc(op.add.v)
		}
		k.acked = true
	case notSent(err):
		h.res.NotSent++
	case definite(err):
		h.res.violate("%s/%s: %s refused with %v while the server was up", b.name, k.name, op, err)
	default:
		h.unknown(b.name+"/"+k.name, err)
		k.pending = op
	}
}

func (o *vop) String() string {
	if o.add != nil {
		return "write of " + o.add.String()
	}
	return "delete of version " + o.remove
}

// versionedOp runs one random operation on a versioned bucket.
func (h *harness) versionedOp(ctx context.Context, rng *rand.Rand, b *vbucket) {
	n := rng.IntN(100)
	if n >= 20 && n < 32 { // a copy from another key's version
		h.withKeysOf(b.keys, rng, 2, func(k []*key) {
			if src := randomVersion(rng, k[0]); src != nil && len(k[1].vers) < maxVersions {
				h.vcopy(ctx, rng, b, src, k[0], k[1])
			}
		})
		return
	}
	h.withKeysOf(b.keys, rng, 1, func(ks []*key) {
		k := ks[0]
		if len(k.vers) >= maxVersions {
			n = 50 // remove a version
		}
		switch {
		case n < 20:
			gen := h.gen.Add(1)
			v, body := newVersion(k.name, gen, false, randSize(rng, 1<<20))
			h.vput(ctx, b, k, v.encrypt(randEnc(rng, k.name, gen)), body[0], lockSpec{})
		case n < 45:
			h.vdelete(ctx, b, k)
		case n < 60:
			if x := k.vers; len(x) > 0 {
				h.vremove(ctx, b, k, x[rng.IntN(len(x))].id, false)
			}
		case n < 67:
			// Restore an older version: a copy of the key onto itself.
			if src := randomVersion(rng, k); src != nil {
				h.vcopy(ctx, rng, b, src, k, k)
			}
		case n < 71:
			gen := h.gen.Add(1)
			v, bodies := newVersion(k.name, gen, true, multipartSizes(rng)...)
			v.encrypt(randEnc(rng, k.name, gen))
			out, sent, err := h.upload(ctx, b.name, k.name, bodies, v)
			if sent {
				var id string
				if err == nil {
					id = aws.ToString(out.VersionId)
					v.ack(out.ETag)
				}
				h.vsettle(b, k, &vop{add: &vver{v: v}}, id, err)
			}
		default:
			h.vread(ctx, rng, b, k)
		}
	})
}

// randomVersion picks one of k's versions that is not a delete marker.
func randomVersion(rng *rand.Rand, k *key) *vver {
	var objs []*vver
	for _, x := range k.vers {
		if !x.marker {
			objs = append(objs, x)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	return objs[rng.IntN(len(objs))]
}

func (h *harness) vput(ctx context.Context, b *vbucket, k *key, v *version, body []byte, lock lockSpec) {
	in := &s3.PutObjectInput{Bucket: aws.String(b.name), Key: aws.String(k.name), Body: bytes.NewReader(body),
		ServerSideEncryption: v.enc.sse()}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = v.enc.customer()
	if lock.locked() {
		// S3 wants Content-MD5 (or a checksum) with lock headers.
		sum := md5.Sum(body)
		in.ContentMD5 = aws.String(base64.StdEncoding.EncodeToString(sum[:]))
		if lock.mode != "" {
			in.ObjectLockMode = types.ObjectLockMode(lock.mode)
			in.ObjectLockRetainUntilDate = aws.Time(lock.until)
		}
		if lock.hold {
			in.ObjectLockLegalHoldStatus = types.ObjectLockLegalHoldStatusOn
		}
	}
	h.ops.Add(1)
	out, err := h.client.PutObject(ctx, in)
	var id string
	if err == nil {
		id = aws.ToString(out.VersionId)
		v.ack(out.ETag)
	}
	h.vsettle(b, k, &vop{add: &vver{v: v, lock: lock}}, id, err)
}

// vdelete writes a delete marker.
func (h *harness) vdelete(ctx context.Context, b *vbucket, k *key) {
	h.ops.Add(1)
	out, err := h.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.name), Key: aws.String(k.name)})
	var id string
	if err == nil {
		id = aws.ToString(out.VersionId)
		if !aws.ToBool(out.DeleteMarker) {
			h.mu.Lock()
			h.res.violate("%s/%s: DELETE answered without x-amz-delete-marker", b.name, k.name)
			h.mu.Unlock()
		}
	}
	h.vsettle(b, k, &vop{add: &vver{marker: true}}, id, err)
}

// vremove deletes the version id for good. A version the lock protects
// must be refused with 403 AccessDenied and stay, answered or not.
func (h *harness) vremove(ctx context.Context, b *vbucket, k *key, id string, bypass bool) {
	x := k.vers[k.find(id)]
	in := &s3.DeleteObjectInput{Bucket: aws.String(b.name), Key: aws.String(k.name), VersionId: aws.String(id)}
	if bypass {
		in.BypassGovernanceRetention = aws.Bool(true)
	}
	protected, sure := x.lock.protects(time.Now(), bypass)
	h.ops.Add(1)
	_, err := h.client.DeleteObject(ctx, in)
	switch {
	case !sure && isAccessDenied(err):
		h.mu.Lock()
		h.res.LockRefusals++
		h.mu.Unlock()
		return
	case !protected:
		if err == nil && x.lock.mode != "" && !bypass {
			h.mu.Lock()
			h.res.ExpiredDeleted++
			h.mu.Unlock()
		}
		h.vsettle(b, k, &vop{remove: id}, "", err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.res.violate("%s/%s: DELETE of %s (bypass %v) succeeded", b.name, k.name, x, bypass)
		k.vers = slices.Delete(k.vers, k.find(id), k.find(id)+1)
	case isAccessDenied(err):
		h.res.LockRefusals++
	case definite(err):
		h.res.violate("%s/%s: DELETE of %s (bypass %v): %v, want 403 AccessDenied", b.name, k.name, x, bypass, err)
	}
	// Unanswered: the version must still be there after the restart.
}

func isAccessDenied(err error) bool {
	var ae smithy.APIError
	return statusOf(err) == http.StatusForbidden && errors.As(err, &ae) && ae.ErrorCode() == "AccessDenied"
}

// vcopy copies the version src of key from onto key to, encrypted as
// the draw from rng says.
func (h *harness) vcopy(ctx context.Context, rng *rand.Rand, b *vbucket, src *vver, from, to *key) {
	gen := h.gen.Add(1)
	v := copyOf(src.v, gen, randEnc(rng, to.name, gen))
	out, err := h.copyObject(ctx, b.name, b.name+"/"+from.name+"?versionId="+src.id, to.name, src.v.enc, v.enc)
	var id string
	if err == nil {
		id = aws.ToString(out.VersionId)
		v.ack(out.CopyObjectResult.ETag)
		if got := aws.ToString(out.CopySourceVersionId); got != src.id {
			h.mu.Lock()
			h.res.violate("%s/%s: copy from version %s answered x-amz-copy-source-version-id %q", b.name, to.name, src.id, got)
			h.mu.Unlock()
		}
	}
	h.vsettle(b, to, &vop{add: &vver{v: v}}, id, err)
}

// vread reads a random version by ID and the key's latest during the
// workload.
func (h *harness) vread(ctx context.Context, rng *rand.Rand, b *vbucket, k *key) {
	var x *vver
	if len(k.vers) > 0 {
		x = k.vers[len(k.vers)-1]
	}
	h.ops.Add(1)
	obs, err := h.getVersion(ctx, b.name, k.name, "", x.enc())
	if err == nil {
		h.checkRead(b, k, obs, x, "")
	}
	if x = randomVersion(rng, k); x == nil {
		return
	}
	h.ops.Add(1)
	if obs, err = h.getVersion(ctx, b.name, k.name, x.id, x.enc()); err == nil {
		h.checkRead(b, k, obs, x, x.id)
	}
}

// checkRead checks a GET during the workload.
func (h *harness) checkRead(b *vbucket, k *key, obs observed, x *vver, id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.checkGet(b, k, obs, x, id, "during the workload") {
		h.res.LiveReads++
	}
}

// checkGet compares a GET of k (by version ID id, or the latest) with the
// version x the model expects (nil or a delete marker: absent), counts a
// torn body as corrupt and reports whether they agree. h.mu is held.
func (h *harness) checkGet(b *vbucket, k *key, obs observed, x *vver, id, when string) bool {
	var want *version
	if x != nil && !x.marker {
		want = x.v
	}
	switch {
	case obs.torn:
		h.damaged(want, true)
		h.res.violate("GET %s/%s version %q %s: body does not match its ETag: %s", b.name, k.name, id, when, obs)
	case !obs.matches(want):
		h.res.violate("GET %s/%s version %q %s: %s, want %v", b.name, k.name, id, when, obs, x)
	case want != nil && obs.version != x.id:
		h.res.violate("GET %s/%s version %q %s: x-amz-version-id %q, want %s", b.name, k.name, id, when, obs.version, x.id)
	default:
		return true
	}
	return false
}

// lockOp runs one random operation on the object-lock bucket.
func (h *harness) lockOp(ctx context.Context, rng *rand.Rand, b *vbucket) {
	h.withKeysOf(b.keys, rng, 1, func(ks []*key) {
		k := ks[0]
		n := rng.IntN(100)
		if len(k.vers) >= maxVersions/2 && n < 50 {
			n = 50 + rng.IntN(40) // full: delete something, or try to
		}
		switch {
		case n < 40:
			var l lockSpec
			switch rng.IntN(5) {
			case 1:
				l.mode = "GOVERNANCE"
			case 2:
				l.mode = "COMPLIANCE"
			case 3:
				l.hold = true
			case 4:
				l.mode, l.hold = "GOVERNANCE", true
			}
			// A day ahead, or (half the time) 20–80 s: long runs then
			// see retentions end and their versions become deletable.
			l.until = time.Now().Add(24 * time.Hour)
			if rng.IntN(2) == 0 {
				l.until = time.Now().Add(20*time.Second + time.Duration(rng.Int64N(int64(time.Minute))))
			}
			gen := h.gen.Add(1)
			v, body := newVersion(k.name, gen, false, randSize(rng, 256<<10))
			h.vput(ctx, b, k, v.encrypt(randEnc(rng, k.name, gen)), body[0], l)
		case n < 50:
			h.vdelete(ctx, b, k)
		case n < 90:
			if x := k.vers; len(x) > 0 {
				h.vremove(ctx, b, k, x[rng.IntN(len(x))].id, n >= 70)
			}
		default:
			h.vread(ctx, rng, b, k)
		}
	})
}
