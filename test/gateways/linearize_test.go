package gateways

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestLinearizableAcrossGateways: three gateways over one PostgreSQL
// database and one data directory; JOG_LINEARIZE_CLIENTS clients (6) run
// gets, puts, deletes, If-None-Match and If-Match puts and multipart
// uploads (parts through different gateways) on JOG_LINEARIZE_KEYS keys
// (3; a new set every two seconds, so each key's history stays short
// enough to check) for JOG_LINEARIZE_DURATION (15s), while one gateway at a time is
// killed with SIGKILL and restarted. Every key's history must be
// linearizable; a violation prints the key's history and writes
// porcupine's visualisation.
func TestLinearizableAcrossGateways(t *testing.T) {
	if testing.Short() {
		t.Skip("three gateways and SIGKILL cycles")
	}
	gws := startGateways(t, 3)
	ctx := t.Context()
	clients := make([]*s3.Client, len(gws))
	for i, g := range gws {
		clients[i] = newClient(g.url())
	}
	if _, err := clients[0].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}

	seed := testutil.EnvInt(t, "JOG_LINEARIZE_SEED", int(time.Now().UnixNano()&0x7fffffff))
	keys := make([]string, testutil.EnvInt(t, "JOG_LINEARIZE_KEYS", 3))
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	dur := 15 * time.Second
	if v := os.Getenv("JOG_LINEARIZE_DURATION"); v != "" {
		var err error
		if dur, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	h := &history{start: time.Now()}
	runCtx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var wg sync.WaitGroup
	workers := make([]*worker, testutil.EnvInt(t, "JOG_LINEARIZE_CLIENTS", 6))
	for i := range workers {
		w := &worker{id: i, clients: clients, keys: keys, h: h, counts: map[opKind]int{},
			rng: rand.New(rand.NewPCG(uint64(seed), uint64(i)))}
		workers[i] = w
		wg.Add(1)
		go func() { defer wg.Done(); w.run(runCtx) }()
	}
	// The killer: one gateway at a time, SIGKILL, a pause, restart.
	kills := 0
	rng := rand.New(rand.NewPCG(uint64(seed), 99))
	var killErr error
	for runCtx.Err() == nil {
		select {
		case <-runCtx.Done():
		case <-time.After(time.Duration(800+rng.IntN(1200)) * time.Millisecond):
		}
		if runCtx.Err() != nil {
			break
		}
		g := gws[rng.IntN(len(gws))]
		g.kill()
		kills++
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
		if err := g.start(ctx); err != nil {
			killErr = err
			cancel()
		}
	}
	wg.Wait()
	if killErr != nil {
		t.Fatal(killErr)
	}
	t.Logf("seed %d: %d operations, %d kills", seed, len(h.ops), kills)
	for _, s := range h.integrity {
		t.Errorf("integrity: %s", s)
	}

	// Something of each kind must have had a definite answer, or the test
	// tested nothing.
	total := map[opKind]int{}
	for _, w := range workers {
		for k, n := range w.counts {
			total[k] += n
		}
	}
	for k := opGet; k <= opMultipart; k++ {
		if total[k] == 0 {
			t.Errorf("no %s had an answer", k)
		}
	}
	if kills == 0 {
		t.Error("no gateway was killed")
	}

	byKey := map[string][]porcupine.Operation{}
	for _, op := range h.ops {
		k := op.Input.(input).Key
		byKey[k] = append(byKey[k], op)
	}
	m := model()
	var all []string
	for k := range byKey {
		all = append(all, k)
	}
	sort.Strings(all)
	for _, k := range all {
		ops := byKey[k]
		sort.Slice(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
		res, info := porcupine.CheckOperationsVerbose(m, ops, time.Minute)
		switch res {
		case porcupine.Ok:
		case porcupine.Illegal:
			viz := filepath.Join(os.TempDir(), "jog-linearize-"+k+".html")
			if err := porcupine.VisualizePath(m, info, viz); err == nil {
				t.Logf("visualisation: %s", viz)
			}
			t.Errorf("key %s: not linearizable (seed %d); its history:\n%s", k, seed, describe(ops))
		default:
			t.Errorf("key %s: the checker gave up after a minute on %d operations (seed %d)", k, len(ops), seed)
		}
	}
}
