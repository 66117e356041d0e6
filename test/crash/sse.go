package crash

// Encryption at rest: the share of the workload's writes that asks for
// SSE-S3, SSE-KMS (the default key) or SSE-C, the headers that write and
// read them, and the check that an answer reports the encryption a
// version was written with.

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Encryption modes of a write ("" is none).
const (
	encS3  = "SSE-S3"
	encKMS = "SSE-KMS"
	encC   = "SSE-C"
)

// encModes are the modes in the order of Result.AckedSSE.
var encModes = []string{encS3, encKMS, encC}

// encSpec is how a version is encrypted: its mode and, for SSE-C, the
// customer key (which every read of it must send).
type encSpec struct {
	mode string
	key  []byte
}

func (e encSpec) String() string {
	if e.mode == "" {
		return "unencrypted"
	}
	return e.mode
}

// randEnc draws the encryption of a write of key at generation gen: about
// one in six writes each SSE-S3, SSE-KMS and SSE-C, the rest none. The
// SSE-C key is a function of (key, gen).
func randEnc(rng *rand.Rand, key string, gen uint64) encSpec {
	switch rng.IntN(6) {
	case 0:
		return encSpec{mode: encS3}
	case 1:
		return encSpec{mode: encKMS}
	case 2:
		k := seedOf("sse-c "+key, gen, 0)
		return encSpec{mode: encC, key: k[:]}
	}
	return encSpec{}
}

// opaque reports whether the server's ETag of such a version is not the
// MD5 of its content (SSE-C and SSE-KMS, as in S3): the model learns it
// from the acknowledgement.
func (e encSpec) opaque() bool { return e.mode == encKMS || e.mode == encC }

// sse is the x-amz-server-side-encryption a write sends and HEAD reports.
func (e encSpec) sse() types.ServerSideEncryption {
	switch e.mode {
	case encS3:
		return types.ServerSideEncryptionAes256
	case encKMS:
		return types.ServerSideEncryptionAwsKms
	}
	return ""
}

// customer is the SSE-C algorithm, key and key MD5 headers (nil unless
// SSE-C), for a write, a read or a copy source.
func (e encSpec) customer() (alg, key, keyMD5 *string) {
	if e.mode != encC {
		return nil, nil, nil
	}
	sum := md5.Sum(e.key)
	return aws.String("AES256"), aws.String(base64.StdEncoding.EncodeToString(e.key)),
		aws.String(base64.StdEncoding.EncodeToString(sum[:]))
}

// reported is the encryption an answer's headers report.
type reported struct {
	sse    types.ServerSideEncryption
	alg    string // x-amz-server-side-encryption-customer-algorithm
	keyMD5 string
}

func reportedOf(sse types.ServerSideEncryption, alg, keyMD5 *string) reported {
	return reported{sse: sse, alg: aws.ToString(alg), keyMD5: aws.ToString(keyMD5)}
}

// is reports whether r is what an answer about a version written with e
// must say.
func (r reported) is(e encSpec) bool {
	alg, _, keyMD5 := e.customer()
	return r.sse == e.sse() && r.alg == aws.ToString(alg) && r.keyMD5 == aws.ToString(keyMD5)
}

func (r reported) String() string {
	switch {
	case r.alg != "":
		return fmt.Sprintf("SSE-C %s, key MD5 %q", r.alg, r.keyMD5)
	case r.sse != "":
		return string(r.sse)
	}
	return "unencrypted"
}

// ackedEnc counts an acknowledged write of v by its encryption. h.mu is
// held.
func (h *harness) ackedEnc(v *version) {
	if i := slices.Index(encModes, v.enc.mode); i >= 0 {
		h.res.AckedSSE[i]++
	}
}

// damaged counts an acknowledged state v that did not read back: corrupt
// (other bytes) or lost, and among them the encrypted ones. h.mu is held.
func (h *harness) damaged(v *version, corrupt bool) {
	enc := v != nil && v.enc.mode != ""
	switch {
	case corrupt:
		h.res.Corrupt++
		if enc {
			h.res.CorruptSSE++
		}
	default:
		h.res.Lost++
		if enc {
			h.res.LostSSE++
		}
	}
}

// unreadable handles a read of k after a restart that failed, what names
// it and enc is the encryption it was sent with: a refusal (a 4xx, such
// as a key the server no longer takes) loses the version, any other error
// stops the run.
func (h *harness) unreadable(k *key, enc encSpec, what string, err error) error {
	if !definite(err) {
		return fmt.Errorf("%s after restart: %w", what, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.res.violate("%s after restart (%s) refused: %v", what, enc, err)
	h.damaged(&version{enc: enc}, false)
	k.broken = true
	return nil
}

// checkHead HEADs the version id of k in bkt (the latest when "") after
// a restart, with v's SSE-C key: it must report v's size, ETag and
// encryption.
func (h *harness) checkHead(ctx context.Context, bkt string, k *key, id string, v *version) error {
	in := &s3.HeadObjectInput{Bucket: aws.String(bkt), Key: aws.String(k.name)}
	if id != "" {
		in.VersionId = aws.String(id)
	}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = v.enc.customer()
	what := fmt.Sprintf("HEAD %s/%s version %q", bkt, k.name, id)
	out, err := h.client.HeadObject(ctx, in)
	if err != nil {
		return h.unreadable(k, v.enc, what, err)
	}
	got := reportedOf(out.ServerSideEncryption, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5)
	etag := strings.Trim(aws.ToString(out.ETag), `"`)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !got.is(v.enc) || aws.ToInt64(out.ContentLength) != v.size || etag != v.etag:
		h.res.violate("%s after restart: %d bytes, etag %s, %s; want %s", what, aws.ToInt64(out.ContentLength), etag, got, v)
		k.broken = true
	case v.enc.mode != "":
		h.res.HeadsSSE++
	}
	return nil
}

// modelSSEC counts the SSE-C objects and versions of the model: what the
// final fsck --deep cannot authenticate.
func (h *harness) modelSSEC() int {
	n := 0
	for _, k := range h.keys {
		if k.state != nil && !k.state.deleted && k.state.enc.mode == encC {
			n++
		}
	}
	for _, k := range slices.Concat(h.vers.keys, h.locked.keys) {
		for _, x := range k.vers {
			if !x.marker && x.v.enc.mode == encC {
				n++
			}
		}
	}
	return n
}
