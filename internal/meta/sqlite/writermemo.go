package sqlite

import "strings"

// bucketMemo remembers bucketRow's answers on the writer connection, so a
// write does not read its bucket's row each time (5% of a PUT 1 KiB's CPU
// under warp, issue 41). Only code holding the writer's one connection
// touches it (the commit loop; an import, which holds that connection from
// begin to end), and the pool's hand-over of that connection orders every
// access. It never holds what a transaction did not keep: every statement
// the writer runs that may write buckets empties it, and so does every
// rollback, of a write's savepoint or of a whole batch.
type bucketMemo struct{ m map[string]bucketRef }

func (c *bucketMemo) get(name string) (bucketRef, bool) {
	b, ok := c.m[name]
	return b, ok
}

func (c *bucketMemo) put(name string, b bucketRef) {
	if c.m == nil {
		c.m = make(map[string]bucketRef)
	}
	c.m[name] = b
}

func (c *bucketMemo) clear() { clear(c.m) }

// writesBuckets reports whether statement q may change a row of buckets
// that bucketRow reads: any statement naming the table but a SELECT. The
// usage triggers on objects and object_versions write only the counters,
// which bucketRow does not read.
func writesBuckets(q string) bool {
	return strings.Contains(q, "buckets") && !strings.HasPrefix(strings.TrimSpace(q), "SELECT")
}
