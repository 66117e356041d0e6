package sqlite

import "strings"

// writerMemo remembers, on the writer connection, bucketRow's answers and
// the directories known to have a row, so a write need not read its
// bucket's row (5% of a PUT 1 KiB's CPU under warp, issue 41) nor try to
// insert its directory (2%) each time. Only code holding the writer's one
// connection touches it (the commit loop; an import, which holds that
// connection from begin to end), and the pool's hand-over of that
// connection orders every access. It never holds what a transaction did
// not keep: a statement the writer runs that may change a remembered row
// empties that part, and every rollback, of a write's savepoint or of a
// whole batch, empties both.
type writerMemo struct {
	buckets map[string]bucketRef
	dirs    map[dirRow]struct{}
}

// writerMemoOf is q's memo when q is the writer's transaction, else nil.
func writerMemoOf(q querier) *writerMemo {
	if t, ok := q.(wtx); ok {
		return t.memo
	}
	return nil
}

// dirRow names a row of dirs.
type dirRow struct {
	bucket int64
	name   string
}

// maxMemoDirs bounds the directories remembered; past it the set starts
// again (a bucket of many directories costs an insert attempt per PUT, as
// before).
const maxMemoDirs = 1 << 14

func (m *writerMemo) bucket(name string) (bucketRef, bool) {
	b, ok := m.buckets[name]
	return b, ok
}

func (m *writerMemo) putBucket(name string, b bucketRef) {
	if m.buckets == nil {
		m.buckets = make(map[string]bucketRef)
	}
	m.buckets[name] = b
}

func (m *writerMemo) hasDir(bucket int64, name string) bool {
	_, ok := m.dirs[dirRow{bucket, name}]
	return ok
}

func (m *writerMemo) putDir(bucket int64, name string) {
	if m.dirs == nil || len(m.dirs) >= maxMemoDirs {
		m.dirs = make(map[dirRow]struct{})
	}
	m.dirs[dirRow{bucket, name}] = struct{}{}
}

// clear forgets everything: a rollback undid rows either part may name.
func (m *writerMemo) clear() {
	clear(m.buckets)
	clear(m.dirs)
}

// forget empties what statement q may change: any statement naming buckets
// but a SELECT may change a bucket's row (the usage triggers on objects and
// object_versions write only the counters, which bucketRow does not read);
// any naming dirs but a SELECT or an INSERT may remove a directory's.
func (m *writerMemo) forget(q string) {
	q = strings.TrimSpace(q)
	if strings.HasPrefix(q, "SELECT") {
		return
	}
	if strings.Contains(q, "buckets") {
		clear(m.buckets)
	}
	if strings.Contains(q, "dirs") && !strings.HasPrefix(q, "INSERT") {
		clear(m.dirs)
	}
}
