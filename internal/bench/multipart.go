package bench

import (
	"context"
	"sync"
	"time"
)

// multipartWorkload uploads each object as a multipart upload: create, then
// --part-concurrency UploadPart calls in flight at once, then complete. One
// operation (MULTIPART) is the whole upload; each part is also recorded
// (PART) but left out of the totals.
type multipartWorkload struct{}

func (*multipartWorkload) Prepare(context.Context, *Env) error { return nil }

type partResult struct {
	etag string
	d    time.Duration
	size int64
	err  error
}

func (*multipartWorkload) Run(ctx context.Context, w *Worker) error {
	env := w.Env
	c, bucket, key := env.Client, env.Bucket, w.NewKey()
	size, partSize := env.Cfg.Size.Pick(w.Rand), env.Cfg.PartSize
	nparts := int(max((size+partSize-1)/partSize, 1))
	start := time.Now()
	uploadID, err := c.CreateMultipartUpload(ctx, bucket, key)
	if err != nil {
		w.Record(OpMultipart, start, 0, 0, err)
		return nil
	}
	parts := make([]partResult, nparts)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(env.Cfg.PartConcurrency, nparts) {
		wg.Go(func() {
			for i := range next {
				off := int64(i) * partSize
				n := min(partSize, size-off)
				t := time.Now()
				etag, err := c.UploadPart(ctx, bucket, key, uploadID, i+1, off, n)
				parts[i] = partResult{etag, time.Since(t), n, err}
			}
		})
	}
	for i := range nparts {
		next <- i
	}
	close(next)
	wg.Wait()
	etags := make([]string, nparts)
	for i, p := range parts {
		w.RecordDuration(OpPart, p.d, 0, p.size, p.err)
		err = cmpOr(err, p.err)
		etags[i] = p.etag
	}
	if err == nil {
		err = c.CompleteMultipartUpload(ctx, bucket, key, uploadID, etags)
	}
	if err != nil {
		_ = c.AbortMultipartUpload(context.WithoutCancel(ctx), bucket, key, uploadID)
	}
	w.Record(OpMultipart, start, 0, size, err)
	return nil
}

func (*multipartWorkload) Cleanup(ctx context.Context, env *Env) error { return removeAll(ctx, env) }
