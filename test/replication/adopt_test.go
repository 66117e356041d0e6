package replication

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil/pgtest"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestAdoptedQueue: gateway A over PostgreSQL (one database, one data
// dir) replicates to a destination; a first batch of versions arrives.
// With the destination down, A acknowledges overwrites, delete markers
// and deletes of versions the destination already has, so A's queue
// holds them (a version delete lives in the queue alone: no row is left
// for a sweep to find). A is killed with SIGKILL; the destination comes
// back; a new gateway C adopts A's queue at its start and delivers it:
// every acknowledged change arrives, the destination's versions equal the
// source's, byte for byte.
func TestAdoptedQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("gateways over PostgreSQL")
	}
	tmp := t.TempDir()
	bin := jogBin(t)
	meta := pgtest.Shared(t).NewDatabase(t)
	dst := newProc(t, bin, filepath.Join(tmp, "dst")).start()
	dc := dst.client()
	itest.VersionedBucket(t, dc, "copy")
	data := filepath.Join(tmp, "data")
	gateway := func() *proc {
		return newProc(t, bin, data, "--meta", meta, "--replication-target", "dr="+dst.url()).start()
	}
	ga := gateway()
	queues := func() []string {
		entries, _ := os.ReadDir(filepath.Join(data, "replication"))
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if q := queues(); len(q) != 1 {
		t.Fatalf("replication/ holds %v with gateway A alone, want one queue", q)
	}
	queueA := queues()[0]
	ca := ga.client()
	itest.VersionedBucket(t, ca, "orig")
	itest.ReplicateAll(t, ca, "orig", "arn:jog:replication::dr:copy")

	ctx := context.Background()
	a := newAcked()
	for i := range 12 {
		if err := a.put(ctx, ca, "orig", fmt.Sprintf("k%d", i%4), itest.RandBytes(uint64(i), 1000+100*i)); err != nil {
			t.Fatal(err)
		}
	}
	itest.WaitReplicated(t, ca, dc, "orig", "copy")

	dst.Kill()
	a.mu.Lock()
	var first []string
	for id := range a.puts {
		first = append(first, id)
	}
	a.mu.Unlock()
	for i, id := range first[:6] {
		key := a.puts[id].key
		if _, err := ca.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String(key), VersionId: aws.String(id)}); err != nil {
			t.Fatalf("DELETE %s@%s: %v", key, id, err)
		}
		a.removed[id] = key
		if err := a.put(ctx, ca, "orig", fmt.Sprintf("k%d", i%4), itest.RandBytes(uint64(100+i), 2000+100*i)); err != nil {
			t.Fatal(err)
		}
		out, err := ca.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String(fmt.Sprintf("m%d", i))})
		if err != nil {
			t.Fatal(err)
		}
		a.markers[aws.ToString(out.VersionId)] = fmt.Sprintf("m%d", i)
	}
	ga.Kill()
	dst.start()
	gc := gateway()
	verify(t, gc.client(), dc, "orig", "copy", a)
	if !strings.Contains(gc.Log.String(), "gateway="+queueA) {
		t.Errorf("gateway C's log does not say it adopted gateway A's queue (%s):\n%s", queueA, gc.Log)
	}
	if q := queues(); len(q) != 1 {
		t.Errorf("replication/ holds %v once C started, want C's queue alone (A's adopted)", q)
	}
}
