package crash

// The workload: workers that PUT, DELETE, copy, upload in parts and read
// random keys, and settle each outcome into the model.

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// workload runs the workers for run and SIGKILLs the servers victims with
// requests in flight. Where other servers survive, the workers go on
// through them while the victims start again (their recovery and orphan
// sweep run beside the survivors' writes), and every server then serves
// for run/2 more before the workers stop. Otherwise the workers stop
// starting requests just before the kill.
func (h *harness) workload(ctx context.Context, run time.Duration, seed uint64, victims []*server, rng *rand.Rand) error {
	h.stop.Store(false)
	var wg sync.WaitGroup
	for w := range h.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.worker(ctx, rand.New(rand.NewPCG(seed, uint64(w))))
		}()
	}
	started := time.Now()
	time.Sleep(run)
	survivors := len(victims) < len(h.servers)
	if survivors {
		h.kill(victims)
		killed := time.Now()
		if err := h.startDown(ctx, rng, true); err != nil {
			h.stop.Store(true)
			h.killAll()
			wg.Wait()
			return err
		}
		h.logf("  %s started again %v after the kill while the others served; all serve for %v more",
			h.named(victims), time.Since(killed).Round(time.Millisecond), (run / 2).Round(time.Millisecond))
		time.Sleep(run / 2)
	}
	h.stop.Store(true) // requests already sent stay in flight through the kill
	if h.stuck(started) {
		wg.Wait()
		return nil
	}
	if !survivors {
		h.kill(victims)
	}
	wg.Wait()
	return nil
}

// kill SIGKILLs the servers ss; requests then go to the others.
func (h *harness) kill(ss []*server) {
	for _, s := range ss {
		s.kill()
		h.res.Kills[s.n-1]++
	}
	h.route()
}

// stuck reports whether the servers stopped answering: no answer since
// stallAfter with requests waiting is a pause; if stuckAfter more bring
// none, they are stuck (a violation), and are stopped with SIGQUIT, which
// makes each write its goroutines to its log as it dies.
func (h *harness) stuck(started time.Time) bool {
	last := time.Unix(0, h.http.lastAnswer.Load())
	if last.Before(started) {
		last = started
	}
	quiet := time.Since(last)
	if quiet <= stallAfter || h.http.waiting.Load() == 0 {
		return false
	}
	h.res.Pauses++
	deadline := time.Now().Add(stuckAfter)
	for h.http.lastAnswer.Load() <= last.UnixNano() && h.http.waiting.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if h.http.lastAnswer.Load() > last.UnixNano() || h.http.waiting.Load() == 0 {
		h.logf("  pause: no answer for %v with requests waiting, then answers resumed", quiet.Round(time.Millisecond))
		return false
	}
	h.res.Stalls++
	h.res.violate("stall: no answer for %v with %d requests waiting; goroutine dumps in the server logs",
		time.Since(last).Round(time.Millisecond), h.http.waiting.Load())
	for _, s := range h.servers {
		if !s.running() {
			continue
		}
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-s.exit:
			s.cmd = nil
		case <-time.After(10 * time.Second):
			s.kill()
		}
	}
	return true
}

func (h *harness) worker(ctx context.Context, rng *rand.Rand) {
	for !h.stop.Load() && ctx.Err() == nil {
		switch n := rng.IntN(100); {
		case n < 20:
			h.versionedOp(ctx, rng, h.vers)
		case n < 30:
			h.lockOp(ctx, rng, h.locked)
		case n < 50:
			h.withKeys(rng, 1, func(k []*key) { h.put(ctx, rng, k[0]) })
		case n < 60:
			h.withKeys(rng, 1, func(k []*key) { h.del(ctx, k[0]) })
		case n < 68:
			h.withKeys(rng, 1, func(k []*key) { h.multipart(ctx, rng, k[0]) })
		case n < 82:
			h.withKeys(rng, 2, func(k []*key) { h.copy(ctx, rng, k[0], k[1]) })
		default:
			h.withKeys(rng, 1, func(k []*key) { h.read(ctx, k[0]) })
		}
	}
}

// withKeys runs fn with n distinct keys that no other worker uses and
// whose state is known.
func (h *harness) withKeys(rng *rand.Rand, n int, fn func([]*key)) {
	h.withKeysOf(h.keys, rng, n, fn)
}

// withKeysOf is withKeys on a key set of any bucket.
func (h *harness) withKeysOf(keys []*key, rng *rand.Rand, n int, fn func([]*key)) {
	var got []*key
	h.mu.Lock()
	for tries := 0; tries < 50 && len(got) < n; tries++ {
		k := keys[rng.IntN(len(keys))]
		if !k.busy && k.inflight == nil && k.pending == nil && !k.broken {
			k.busy = true
			got = append(got, k)
		}
	}
	h.mu.Unlock()
	if len(got) == n {
		fn(got)
	} else {
		time.Sleep(time.Millisecond)
	}
	h.mu.Lock()
	for _, k := range got {
		k.busy = false
	}
	h.mu.Unlock()
}

// definite reports whether err is an answer from the server (a 4xx S3
// error): the request was refused and changed nothing. Transport errors
// (status 0) and 5xx leave the outcome unknown.
func definite(err error) bool {
	code := statusOf(err)
	return code >= 400 && code < 500
}

// notSent reports an error from dialing a server that is gone: the
// request never reached it.
func notSent(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}

func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// settle records the outcome of a mutation of k whose result is v.
func (h *harness) settle(k *key, v *version, err error, counter *int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		k.state, k.acked = v, true
		h.res.Acked++
		h.ackedEnc(v)
		*counter++
	case notSent(err):
		h.res.NotSent++
	case definite(err):
		h.res.violate("%s: refused with %v while the server was up", k.name, err)
	default:
		h.unknown(k.name, err)
		k.inflight = v
	}
}

// unknown notes a mutation of name whose outcome err leaves unknown: no
// answer (the kill), or a 5xx answer, which is counted and logged (the
// first 20). h.mu is held.
func (h *harness) unknown(name string, err error) {
	if statusOf(err) < 500 {
		return
	}
	if h.res.ServerErrors++; h.res.ServerErrors <= 20 {
		h.logf("  %s: %v", name, err)
	}
}

func randSize(rng *rand.Rand, max int64) int64 {
	switch n := rng.IntN(100); {
	case n < 5:
		return 0
	case n < 50:
		return rng.Int64N(64 << 10)
	case n < 85:
		return rng.Int64N(512 << 10)
	default:
		return rng.Int64N(max + 1)
	}
}

func (h *harness) put(ctx context.Context, rng *rand.Rand, k *key) {
	gen := h.gen.Add(1)
	v, bodies := newVersion(k.name, gen, false, randSize(rng, 2<<20))
	v.encrypt(randEnc(rng, k.name, gen))
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k.name), Body: bytes.NewReader(bodies[0]),
		ServerSideEncryption: v.enc.sse()}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = v.enc.customer()
	h.ops.Add(1)
	out, err := h.client.PutObject(ctx, in)
	if err == nil {
		v.ack(out.ETag)
	}
	h.settle(k, v, err, &h.res.AckedPuts)
}

func (h *harness) del(ctx context.Context, k *key) {
	v := &version{gen: h.gen.Add(1), deleted: true}
	h.ops.Add(1)
	_, err := h.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(k.name)})
	h.settle(k, v, err, &h.res.AckedDeletes)
}

func (h *harness) multipart(ctx context.Context, rng *rand.Rand, k *key) {
	gen := h.gen.Add(1)
	sizes := multipartSizes(rng)
	v, bodies := newVersion(k.name, gen, true, sizes...)
	v.encrypt(randEnc(rng, k.name, gen))
	if out, sent, err := h.upload(ctx, bucket, k.name, bodies, v); sent {
		if err == nil {
			v.ack(out.ETag)
		}
		h.settle(k, v, err, &h.res.AckedMultipart)
	}
}

// multipartSizes are the part sizes of a random multipart upload.
func multipartSizes(rng *rand.Rand) []int64 {
	if rng.IntN(3) == 0 {
		return []int64{minPart, minPart + rng.Int64N(64<<10), rng.Int64N(256 << 10)}
	}
	return []int64{minPart + rng.Int64N(64<<10), 1 + rng.Int64N(1<<20)}
}

// upload uploads bodies as the parts of a multipart upload of name,
// encrypted as v, and completes it; the ETag must be v's when the model
// knows it. sent is false when the upload failed before the complete
// was sent: the key is untouched (an upload a kill interrupted is aborted
// after the restart).
func (h *harness) upload(ctx context.Context, bkt, name string, bodies [][]byte, v *version) (*s3.CompleteMultipartUploadOutput, bool, error) {
	h.ops.Add(1)
	create := &s3.CreateMultipartUploadInput{Bucket: aws.String(bkt), Key: aws.String(name), ServerSideEncryption: v.enc.sse()}
	create.SSECustomerAlgorithm, create.SSECustomerKey, create.SSECustomerKeyMD5 = v.enc.customer()
	up, err := h.client.CreateMultipartUpload(ctx, create)
	if err != nil {
		return nil, false, err
	}
	var parts []types.CompletedPart
	for i, b := range bodies {
		h.ops.Add(1)
		in := &s3.UploadPartInput{Bucket: aws.String(bkt), Key: aws.String(name),
			UploadId: up.UploadId, PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(b)}
		in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = v.enc.customer()
		out, err := h.client.UploadPart(ctx, in)
		if err != nil {
			h.mu.Lock()
			if definite(err) {
				h.res.violate("%s/%s: UploadPart refused: %v", bkt, name, err)
			}
			h.unknown(bkt+"/"+name, err)
			h.mu.Unlock()
			return nil, false, err
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag,
			ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C, ChecksumCRC64NVME: out.ChecksumCRC64NVME,
			ChecksumSHA1: out.ChecksumSHA1, ChecksumSHA256: out.ChecksumSHA256})
	}
	h.ops.Add(1)
	out, err := h.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bkt), Key: aws.String(name),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err == nil && v.etag != "" {
		if got := strings.Trim(aws.ToString(out.ETag), `"`); got != v.etag {
			h.mu.Lock()
			h.res.violate("%s/%s: CompleteMultipartUpload ETag %s, want %s", bkt, name, got, v.etag)
			h.mu.Unlock()
		}
	}
	return out, true, err
}

// copy copies src onto dst, encrypted as the draw from rng says (the
// source's SSE-C key sent when it has one).
func (h *harness) copy(ctx context.Context, rng *rand.Rand, src, dst *key) {
	gen := h.gen.Add(1)
	enc := randEnc(rng, dst.name, gen)
	out, err := h.copyObject(ctx, bucket, bucket+"/"+src.name, dst.name, encOf(src.state), enc)
	if src.state == nil || src.state.deleted {
		switch {
		case err == nil:
			h.mu.Lock()
			h.res.violate("copy from %s (%v) succeeded", src.name, src.state)
			dst.broken = true
			h.mu.Unlock()
		case definite(err) && statusOf(err) != http.StatusNotFound:
			h.mu.Lock()
			h.res.violate("copy from absent %s: %v, want 404", src.name, err)
			h.mu.Unlock()
		}
		return // a copy from nothing changes nothing
	}
	v := copyOf(src.state, gen, enc)
	if err == nil {
		v.ack(out.CopyObjectResult.ETag)
	}
	h.settle(dst, v, err, &h.res.AckedCopies)
}

// copyObject copies source (bucket/key[?versionId=]) encrypted with from
// onto key of bkt, encrypted with to.
func (h *harness) copyObject(ctx context.Context, bkt, source, key string, from, to encSpec) (*s3.CopyObjectOutput, error) {
	in := &s3.CopyObjectInput{Bucket: aws.String(bkt), Key: aws.String(key), CopySource: aws.String(source),
		ServerSideEncryption: to.sse()}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = to.customer()
	in.CopySourceSSECustomerAlgorithm, in.CopySourceSSECustomerKey, in.CopySourceSSECustomerKeyMD5 = from.customer()
	h.ops.Add(1)
	return h.client.CopyObject(ctx, in)
}

// read checks a GET during the workload against the key's known state.
func (h *harness) read(ctx context.Context, k *key) {
	h.ops.Add(1)
	obs, err := h.get(ctx, k.name, encOf(k.state))
	if err != nil {
		if definite(err) {
			h.mu.Lock()
			h.res.violate("GET %s during the workload: %v, want %s", k.name, err, k.state)
			h.mu.Unlock()
		}
		return // the kill, most likely
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if obs.torn {
		h.damaged(k.state, true)
		h.res.violate("GET %s during the workload: %s", k.name, obs)
		return
	}
	if !obs.matches(k.state) {
		h.res.violate("GET %s during the workload: %s, want %s", k.name, obs, k.state)
		return
	}
	h.res.LiveReads++
}
