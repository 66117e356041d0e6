package gateways

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
)

const bucket = "linearize"

// partSize is the first part of a multipart value: S3's smallest part
// that is not the last.
const partSize = 5 << 20

// history records operations as porcupine wants them: call and return in
// nanoseconds since the start; an operation without an answer returns at
// math.MaxInt64 (it may take effect at any time after its call).
type history struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
	// integrity lists reads whose bytes were not the bytes of the value
	// they named (corruption, not a linearizability question).
	integrity []string
}

func (h *history) now() int64 { return int64(time.Since(h.start)) }

// settle bounds when an unanswered operation can take effect, after its
// error, unless the error was the client giving up (pending): the request
// ended because its gateway died (its connection broke) or answered 5xx,
// so the gateway no longer works on it, and a commit PostgreSQL had
// already received when the gateway died completes within milliseconds.
// Bounding these keeps the checker's search small; an operation the
// client abandoned (a timeout, the end of the run) may still be in a live
// gateway's hands, and may take effect at any later time.
const settle = time.Second

func (h *history) add(client int, in input, call int64, out output, pending bool) {
	ret := h.now()
	if out.Out == outUnknown {
		ret += int64(settle)
		if pending {
			ret = math.MaxInt64
		}
	}
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	h.mu.Unlock()
}

func (h *history) corrupt(format string, args ...any) {
	h.mu.Lock()
	h.integrity = append(h.integrity, fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

// body is the object a value stores: the value, '|', then filler derived
// from the value up to size bytes, so a read can tell a torn or mixed
// object from a whole one.
func body(value string, size int) []byte {
	b := make([]byte, 0, max(size, len(value)+1))
	b = append(b, value...)
	b = append(b, '|')
	for i := 0; len(b) < size; i++ {
		b = append(b, value[i%len(value)])
	}
	return b
}

// parse returns the value an object's bytes store, and whether they are
// exactly body(value, len(b)).
func parse(b []byte) (string, bool) {
	i := bytes.IndexByte(b, '|')
	if i <= 0 {
		return "", false
	}
	v := string(b[:i])
	return v, bytes.Equal(b, body(v, len(b)))
}

// newClient is an S3 client of one gateway, retries off: an error means
// the outcome is unknown unless the server answered.
func newClient(url string) *s3.Client {
	return s3.New(s3.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		BaseEndpoint: aws.String(url),
		UsePathStyle: true,
		Retryer:      aws.NopRetryer{},
		Logger:       logging.Nop{},
		HTTPClient:   &http.Client{Timeout: 30 * time.Second},

		DisableLogOutputChecksumValidationSkipped: true,
	})
}

// classify turns a write's error into its outcome.
func classify(err error) outcome {
	if err == nil {
		return outOK
	}
	var re interface{ HTTPStatusCode() int }
	var ae smithy.APIError
	if errors.As(err, &re) {
		switch code := re.HTTPStatusCode(); {
		case code == http.StatusPreconditionFailed, code == http.StatusNotFound:
			return outFailed
		case code == http.StatusServiceUnavailable, code == http.StatusConflict:
			return outRefused
		}
	} else if errors.As(err, &ae) && ae.ErrorCode() == "PreconditionFailed" {
		return outFailed
	}
	return outUnknown
}

// worker is one client: it runs operations on random keys through random
// gateways until ctx ends.
type worker struct {
	id      int
	clients []*s3.Client
	keys    []string
	h       *history
	rng     *rand.Rand
	n       int
	counts  map[opKind]int // operations with a definite answer
}

func (w *worker) gateway() *s3.Client { return w.clients[w.rng.IntN(len(w.clients))] }

func (w *worker) nextValue() string {
	w.n++
	return fmt.Sprintf("c%d-%d", w.id, w.n)
}

// epoch is how long a key set is used: every epoch the workers move on to
// new keys, so that each key's history stays short enough for the checker
// (operations without an answer can linearize anywhere after their call,
// which makes a long history of one key expensive to check).
const epoch = 2 * time.Second

func (w *worker) run(ctx context.Context) {
	for ctx.Err() == nil {
		e := time.Since(w.h.start) / epoch
		key := fmt.Sprintf("e%d-%s", e, w.keys[w.rng.IntN(len(w.keys))])
		switch r := w.rng.IntN(100); {
		case r < 35:
			w.get(ctx, key)
		case r < 55:
			w.put(ctx, key, opPut, "")
		case r < 65:
			w.del(ctx, key)
		case r < 77:
			w.put(ctx, key, opPutIfAbsent, "")
		case r < 92:
			if v, etag, ok := w.get(ctx, key); ok {
				w.putIfMatch(ctx, key, v, etag)
			}
		default:
			w.multipart(ctx, key)
		}
	}
}

// record adds an operation that ended with err (nil: answered). An
// operation that gave no answer because the client gave up (ctx ended, a
// timeout) is pending: it may take effect at any later time.
func (w *worker) record(ctx context.Context, in input, call int64, out output, err error) {
	var ne net.Error
	pending := err != nil && (ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()))
	if pending {
		out.Out = outUnknown
	}
	w.h.add(w.id, in, call, out, pending)
	if out.Out != outUnknown {
		w.counts[in.Kind]++
	}
}

// get reads key; it returns the value and ETag when found.
func (w *worker) get(ctx context.Context, key string) (string, string, bool) {
	in := input{Key: key, Kind: opGet}
	call := w.h.now()
	resp, err := w.gateway().GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			w.record(ctx, in, call, output{Out: outMissing}, nil)
		}
		return "", "", false // no answer: a read that may not have happened is left out
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return "", "", false
	}
	v, whole := parse(b)
	if !whole {
		w.h.corrupt("get(%s) read %d bytes that are no value's object (starting %q)", key, len(b), b[:min(len(b), 40)])
		return "", "", false
	}
	w.record(ctx, in, call, output{Out: outOK, Value: v}, nil)
	return v, aws.ToString(resp.ETag), true
}

func (w *worker) put(ctx context.Context, key string, kind opKind, _ string) {
	v := w.nextValue()
	size := len(v) + 1
	if w.rng.IntN(4) == 0 {
		size = 40 << 10 // a blob file rather than inline data
	}
	in := input{Key: key, Kind: kind, Value: v}
	put := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body(v, size))}
	if kind == opPutIfAbsent {
		put.IfNoneMatch = aws.String("*")
	}
	call := w.h.now()
	_, err := w.gateway().PutObject(ctx, put)
	out := classify(err)
	if out == outFailed && kind == opPut {
		out = outUnknown // a plain PUT has no condition to fail
	}
	w.record(ctx, in, call, output{Out: out}, err)
}

func (w *worker) putIfMatch(ctx context.Context, key, was, etag string) {
	v := w.nextValue()
	in := input{Key: key, Kind: opPutIfMatch, Value: v, Expect: was}
	call := w.h.now()
	_, err := w.gateway().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader(body(v, len(v)+1)), IfMatch: aws.String(etag)})
	w.record(ctx, in, call, output{Out: classify(err)}, err)
}

func (w *worker) del(ctx context.Context, key string) {
	in := input{Key: key, Kind: opDelete}
	call := w.h.now()
	_, err := w.gateway().DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	out := classify(err)
	if out == outFailed {
		out = outUnknown // no condition to fail
	}
	w.record(ctx, in, call, output{Out: out}, err)
}

// multipart creates an upload through one gateway, uploads its two parts
// through two others (chosen at random) and completes it through a
// fourth choice. Only the completion is the operation on the key: an
// upload that fails before it is abandoned.
func (w *worker) multipart(ctx context.Context, key string) {
	v := w.nextValue()
	b := body(v, partSize+1024)
	up, err := w.gateway().CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return
	}
	var parts []types.CompletedPart
	for i, p := range [][]byte{b[:partSize], b[partSize:]} {
		n := int32(i + 1)
		r, err := w.gateway().UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key),
			UploadId: up.UploadId, PartNumber: aws.Int32(n), Body: bytes.NewReader(p)})
		if err != nil {
			return
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(n), ETag: r.ETag})
	}
	in := input{Key: key, Kind: opMultipart, Value: v}
	call := w.h.now()
	_, err = w.gateway().CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket),
		Key: aws.String(key), UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	out := classify(err)
	if out == outFailed {
		out = outUnknown // no condition to fail
	}
	w.record(ctx, in, call, output{Out: out}, err)
}

// describe prints a key's operations in call order, one per line.
func describe(ops []porcupine.Operation) string {
	m := model()
	var sb strings.Builder
	for _, op := range ops {
		ret := "∞"
		if op.Return != math.MaxInt64 {
			ret = fmt.Sprintf("%.3f", float64(op.Return)/1e9)
		}
		fmt.Fprintf(&sb, "  [%.3f, %s] client %d: %s\n", float64(op.Call)/1e9, ret, op.ClientId, m.DescribeOperation(op.Input, op.Output))
	}
	return sb.String()
}
