package replication

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// rounds is how many times a fault is repeated: once in -short.
func rounds() int {
	if testing.Short() {
		return 1
	}
	return 3
}

// TestSourceKilled: writers overwrite a few keys, make delete markers,
// remove versions and upload a multipart object on the source while it
// replicates; the source is killed with SIGKILL mid-stream and restarted
// on the same data dir, several times. Then every acknowledged change is
// on the destination, whose versions equal the source's (what was in
// flight at a kill included), byte for byte, and the source says
// COMPLETED for each.
func TestSourceKilled(t *testing.T) {
	src, dst := pair(t)
	a := newAcked()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for round := range rounds() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			writers(ctx, src.client(), "orig", 4, seed+uint64(round), a)
			close(done)
		}()
		time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
		src.Kill()
		<-done
		cancel()
		puts, markers, removed := a.count()
		t.Logf("round %d: killed; acknowledged so far: %d writes, %d markers, %d version deletes", round, puts, markers, removed)
		src.start()
	}
	verify(t, src.client(), dst.client(), "orig", "copy", a)
}

// TestDestinationKilled: while writers run on the source, the destination
// is killed with SIGKILL and, after a while, restarted on the same address
// and data dir; the writers go on throughout. Every acknowledged change
// arrives, byte for byte, and the source says COMPLETED for each.
func TestDestinationKilled(t *testing.T) {
	src, dst := pair(t)
	a := newAcked()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		writers(ctx, src.client(), "orig", 2, uint64(time.Now().UnixNano()), a)
		close(done)
	}()
	for range rounds() {
		time.Sleep(time.Second)
		dst.Kill()
		time.Sleep(2 * time.Second)
		dst.start()
	}
	time.Sleep(time.Second)
	cancel()
	<-done
	if a.errs > 0 {
		t.Fatalf("%d writes to the source failed while the destination was down", a.errs)
	}
	verify(t, src.client(), dst.client(), "orig", "copy", a)
	for _, line := range []string{"replication target down", "replication target recovered"} {
		if !strings.Contains(src.Log.String(), line) {
			t.Errorf("the source's log has no %q line:\n%s", line, src.Log)
		}
	}
	puts, markers, removed := a.count()
	t.Logf("acknowledged: %d writes, %d markers, %d version deletes", puts, markers, removed)
}
