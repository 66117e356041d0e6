package bench

import (
	"context"
	"time"
)

// listWorkload pages through the prepared objects with ListObjectsV2, each
// worker on its own cursor: one operation is one page of --list-max-keys
// keys. Small objects (--size 0 or 1KiB) keep the prepare step short. With
// --list-prefixes N the objects are spread over N prefixes and listed with
// the delimiter "/": a page is then --list-max-keys common prefixes. It
// prepares as list-versions does, so --versions and --delete-markers
// measure ListObjectsV2 in a bucket full of versions it must skip.
type listWorkload struct{}

func (*listWorkload) Prepare(ctx context.Context, env *Env) error { return prepareListing(ctx, env) }

// listCursor is a worker's continuation token, kept between operations.
type listCursor struct{ token string }

func (*listWorkload) Run(ctx context.Context, w *Worker) error {
	cur, _ := w.state.(*listCursor)
	if cur == nil {
		cur = &listCursor{}
		w.state = cur
	}
	list(ctx, w, cur)
	return nil
}

func list(ctx context.Context, w *Worker, cur *listCursor) {
	start := time.Now()
	delim := ""
	if w.Env.Cfg.ListPrefixes > 0 {
		delim = "/"
	}
	page, err := w.Env.Client.ListDelimited(ctx, w.Env.Bucket, w.Env.Prefix+"obj/", delim, cur.token, w.Env.Cfg.ListMaxKeys)
	d := page.Received // to the last byte: the client's XML parsing is not the server's time
	if err != nil {
		d = time.Since(start)
	}
	w.RecordListed(OpList, d, len(page.Keys)+len(page.Prefixes), err)
	cur.token = page.NextToken
}

func (*listWorkload) Cleanup(ctx context.Context, env *Env) error { return cleanupListing(ctx, env) }
