package crash

// The model: deterministic object content, the versions a key may hold,
// and the check of what a restarted server returns against them.

import (
	"cmp"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// part is a deterministic run of bytes.
type part struct {
	seed [32]byte
	size int64
}

func (p part) bytes() []byte {
	b := make([]byte, p.size)
	_, _ = rand.NewChaCha8(p.seed).Read(b)
	return b
}

// version is one state of a key: a whole object, or absent (deleted).
type version struct {
	gen       uint64
	deleted   bool
	parts     []part
	multipart bool // ETag is the MD5 of the part MD5s, "-N"
	size      int64
	md5       [16]byte // of the whole content
	etag      string   // "" while unknown (an opaque ETag not yet acknowledged)
	enc       encSpec
}

func (v *version) String() string {
	switch {
	case v == nil:
		return "never written"
	case v.deleted:
		return fmt.Sprintf("deleted (gen %d)", v.gen)
	}
	return fmt.Sprintf("gen %d, %d bytes, etag %s, %s", v.gen, v.size, v.etag, v.enc)
}

// encrypt makes v a write encrypted with e: its ETag is then learnt from
// the acknowledgement when e's is opaque.
func (v *version) encrypt(e encSpec) *version {
	v.enc = e
	if e.opaque() {
		v.etag = ""
	}
	return v
}

// ack records the ETag a write of v was acknowledged with, when the model
// could not know it.
func (v *version) ack(etag *string) {
	if v.etag == "" {
		v.etag = strings.Trim(aws.ToString(etag), `"`)
	}
}

func seedOf(key string, gen uint64, n int) [32]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], gen)
	binary.LittleEndian.PutUint64(b[8:], uint64(n))
	return sha256.Sum256(append([]byte(key), b[:]...))
}

// newVersion describes a PUT (one part) or multipart upload of key.
func newVersion(key string, gen uint64, multipart bool, sizes ...int64) (*version, [][]byte) {
	v := &version{gen: gen, multipart: multipart}
	whole, partMD5s := md5.New(), md5.New()
	var bodies [][]byte
	for i, s := range sizes {
		p := part{seed: seedOf(key, gen, i), size: s}
		b := p.bytes()
		bodies = append(bodies, b)
		v.parts = append(v.parts, p)
		v.size += s
		whole.Write(b)
		sum := md5.Sum(b)
		partMD5s.Write(sum[:])
	}
	copy(v.md5[:], whole.Sum(nil))
	v.etag = hex.EncodeToString(v.md5[:])
	if multipart {
		v.etag = hex.EncodeToString(partMD5s.Sum(nil)) + "-" + strconv.Itoa(len(sizes))
	}
	return v, bodies
}

// copyOf is what CopyObject of src encrypted with enc makes: the same
// bytes, a plain ETag (unless enc's is opaque).
func copyOf(src *version, gen uint64, enc encSpec) *version {
	v := &version{gen: gen, parts: src.parts, size: src.size, md5: src.md5, etag: hex.EncodeToString(src.md5[:])}
	return v.encrypt(enc)
}

type key struct {
	name  string
	busy  bool     // a worker is using it
	state *version // known state: nil = never written
	// inflight is an operation whose outcome is unknown (sent, no
	// answer): the key is not used again until a restart resolves it.
	inflight *version
	acked    bool // state was acknowledged during the current cycle
	broken   bool // a violation was found; not used further

	// In a versioned bucket: the key's versions and delete markers, oldest
	// first, and the operation whose outcome is unknown (see versions.go).
	vers    []*vver
	pending *vop
}

// observed is what a GET returned.
type observed struct {
	present bool
	version string // x-amz-version-id
	size    int64
	md5     [16]byte
	etag    string
	enc     reported // the encryption the answer reports
	torn    bool     // the body's MD5 is not its single-part ETag
}

func (o observed) String() string {
	if !o.present {
		return "absent"
	}
	return fmt.Sprintf("%d bytes, md5 %x, etag %s, %s", o.size, o.md5, o.etag, o.enc)
}

func (o observed) matches(v *version) bool {
	if v == nil || v.deleted {
		return !o.present
	}
	return o.present && o.size == v.size && o.md5 == v.md5 && (v.etag == "" || o.etag == v.etag) && o.enc.is(v.enc)
}

// wrongBytes reports whether the answer claims the version v (its ETag)
// but its bytes are not v's: corrupt, not lost.
func (o observed) wrongBytes(v *version) bool {
	return o.present && v != nil && !v.deleted && v.etag != "" && o.etag == v.etag && (o.size != v.size || o.md5 != v.md5)
}

// encOf is the encryption to read the latest state of a key with: its
// acknowledged state's, or when that is absent the in-flight write's.
func encOf(vs ...*version) encSpec {
	for _, v := range vs {
		if v != nil && !v.deleted {
			return v.enc
		}
	}
	return encSpec{}
}

func (h *harness) get(ctx context.Context, name string, enc encSpec) (observed, error) {
	return h.getVersion(ctx, bucket, name, "", enc)
}

// getVersion GETs the version id of name (the latest when id is "") with
// the SSE-C key of enc, if any.
func (h *harness) getVersion(ctx context.Context, bkt, name, id string, enc encSpec) (observed, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(bkt), Key: aws.String(name)}
	if id != "" {
		in.VersionId = aws.String(id)
	}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = enc.customer()
	out, err := h.client.GetObject(ctx, in)
	if statusOf(err) == http.StatusNotFound {
		return observed{}, nil
	}
	if err != nil {
		return observed{}, err
	}
	defer out.Body.Close()
	m := md5.New()
	n, err := io.Copy(m, out.Body)
	if err != nil {
		return observed{}, err
	}
	o := observed{present: true, size: n, etag: strings.Trim(aws.ToString(out.ETag), `"`), version: aws.ToString(out.VersionId),
		enc: reportedOf(out.ServerSideEncryption, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5)}
	copy(o.md5[:], m.Sum(nil))
	opaque := o.enc.alg != "" || o.enc.sse == types.ServerSideEncryptionAwsKms // the ETag is no MD5
	if !opaque && !strings.Contains(o.etag, "-") && o.etag != hex.EncodeToString(o.md5[:]) {
		o.torn = true
	}
	if out.ContentLength != nil && *out.ContentLength != n {
		o.torn = true
	}
	return o, nil
}

// verify reads every key back and resolves what was in flight.
func (h *harness) verify(ctx context.Context) error {
	h.bypassed = false
	before := h.res
	present := map[string]bool{}
	verified, rechecked := 0, 0
	err := eachKey(h.keys, func(k *key) error {
		// The acknowledged state's SSE-C key, or the in-flight write's.
		obs, err := h.get(ctx, k.name, encOf(k.state, k.inflight))
		if definite(err) && k.inflight != nil && !k.inflight.deleted {
			obs, err = h.get(ctx, k.name, k.inflight.enc)
		}
		if err != nil {
			if definite(err) { // refused, not absent: listed
				h.mu.Lock()
				present[k.name] = true
				h.mu.Unlock()
			}
			return h.unreadable(k, encOf(k.state, k.inflight), "GET "+k.name, err)
		}
		v := h.settleRestart(k, obs, present, &verified, &rechecked)
		if v == nil {
			return nil
		}
		return h.checkHead(ctx, bucket, k, "", v)
	})
	if err != nil {
		return err
	}
	// The listing agrees with the GETs.
	p := s3.NewListObjectsV2Paginator(h.client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	listed := map[string]bool{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list after restart: %w", err)
		}
		for _, o := range page.Contents {
			listed[aws.ToString(o.Key)] = true
		}
	}
	for name, ok := range present {
		if ok != listed[name] {
			h.res.violate("after restart GET says %s present=%v, listing says %v", name, ok, listed[name])
		}
	}
	if err := h.checkDirListing(ctx, present); err != nil {
		return err
	}
	for _, b := range []*vbucket{h.vers, h.locked} {
		if err := h.verifyVersions(ctx, b); err != nil {
			return err
		}
	}
	// Abort the uploads kills interrupted: workers never keep one across
	// a cycle.
	aborted := 0
	for _, bkt := range []string{bucket, h.vers.name} {
		up := s3.NewListMultipartUploadsPaginator(h.client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bkt)})
		for up.HasMorePages() {
			page, err := up.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("list uploads after restart: %w", err)
			}
			for _, u := range page.Uploads {
				_, err := h.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bkt), Key: u.Key, UploadId: u.UploadId})
				if err != nil {
					return fmt.Errorf("abort upload of %s: %w", aws.ToString(u.Key), err)
				}
				aborted++
			}
		}
	}
	h.res.UploadsAborted += aborted
	h.logf("  restart: verified %d, rechecked %d, unacknowledged present %d / absent %d, uploads aborted %d; "+
		"versions verified by ID %d, locked versions refusing DELETE %d; now %d versions, %d delete markers (%d locked)",
		verified, rechecked, h.res.UnackPresent-before.UnackPresent, h.res.UnackAbsent-before.UnackAbsent, aborted,
		h.res.VersionsVerified-before.VersionsVerified, h.res.LockedVerified-before.LockedVerified,
		h.countVersions(false, false), h.countVersions(true, false), h.countVersions(false, true))
	return nil
}

// settleRestart compares what a GET of k found after a restart with the
// model, resolves the write in flight, and returns the state to check
// with a HEAD (nil: none, or k is broken).
func (h *harness) settleRestart(k *key, obs observed, present map[string]bool, verified, rechecked *int) *version {
	h.mu.Lock()
	defer h.mu.Unlock()
	present[k.name] = obs.present
	matchState, matchInflight := obs.matches(k.state), k.inflight != nil && obs.matches(k.inflight)
	switch {
	case obs.torn:
		h.damaged(k.state, true)
		h.res.violate("GET %s after restart: body does not match its ETag: %s (acknowledged %s, in flight %s)",
			k.name, obs, k.state, k.inflight)
		k.broken = true
	case matchInflight && !matchState:
		h.res.UnackPresent++
		if k.acked {
			h.res.Superseded++
		}
		k.state = k.inflight
		k.state.ack(&obs.etag)
	case matchState:
		if k.acked {
			*verified++
			h.res.Verified++
		} else {
			*rechecked++
			h.res.Rechecked++
		}
		if k.inflight != nil {
			h.res.UnackAbsent++
		}
	default:
		if obs.present && (k.state == nil || k.state.deleted) && (k.inflight == nil || k.inflight.deleted) {
			h.res.violate("GET %s after restart: deleted key is back: %s (acknowledged %s, in flight %s)", k.name, obs, k.state, k.inflight)
		} else {
			h.res.violate("GET %s after restart: %s; acknowledged %s, in flight %s", k.name, obs, k.state, k.inflight)
		}
		h.damaged(k.state, obs.wrongBytes(k.state))
		k.broken = true
	}
	k.inflight, k.acked = nil, false
	if k.broken || k.state == nil || k.state.deleted {
		return nil
	}
	return k.state
}

// eachKey runs fn on every key not broken, four at a time, and returns
// the first error.
func eachKey(keys []*key, fn func(*key) error) error {
	work := make(chan *key)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				if err := fn(k); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, k := range keys {
		if !k.broken {
			work <- k
		}
	}
	close(work)
	wg.Wait()
	return first
}

// checkDirListing lists the bucket by the delimiter "/" at the top and in
// every directory that has a key present, and compares the common
// prefixes and keys with what the GETs found.
func (h *harness) checkDirListing(ctx context.Context, present map[string]bool) error {
	want := map[string][]string{"": nil} // prefix → the items listed under it
	for name, ok := range present {
		if !ok {
			continue
		}
		top := name[:strings.IndexByte(name, '/')+1]
		want[""] = append(want[""], top)
		want[top] = append(want[top], top+"obj/")
		want[top+"obj/"] = append(want[top+"obj/"], name)
	}
	for prefix, items := range want {
		slices.Sort(items)
		items = slices.Compact(items)
		var got []string
		p := s3.NewListObjectsV2Paginator(h.client, &s3.ListObjectsV2Input{
			Bucket: aws.String(bucket), Prefix: aws.String(prefix), Delimiter: aws.String("/"), MaxKeys: aws.Int32(3)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("list %q by \"/\" after restart: %w", prefix, err)
			}
			for _, cp := range page.CommonPrefixes {
				got = append(got, aws.ToString(cp.Prefix))
			}
			for _, o := range page.Contents {
				got = append(got, aws.ToString(o.Key))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, items) {
			h.res.violate("after restart the listing of %q by \"/\" is %q; the GETs say %q", prefix, got, items)
		}
	}
	return nil
}
