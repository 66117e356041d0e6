// Package crash is JOG's crash-consistency harness. It starts a real
// `jog server` process (fsync always), drives concurrent PUTs, overwrites,
// DELETEs, multipart uploads and copies on random keys, kill -9s the
// process at random moments, restarts it on the same data dir and checks
// what came back against a model of every acknowledged and in-flight write:
//
//   - the latest acknowledged state of every key reads back byte-exact with
//     its ETag, unless a later write to the key was in flight at the kill,
//     in which case either state may be there, whole;
//   - a write never acknowledged is absent or whole, never partial;
//   - no GET returns bytes that disagree with the ETag it reports;
//   - a deleted key stays deleted (unless a later write was in flight);
//   - right after a kill, `jog fsck --deep` finds no damaged object (only
//     the orphan blobs and temp files recovery removes); after the last
//     cycle the server is stopped and `jog fsck --deep` must exit 0.
//
// Content is a deterministic function of (key, generation, part), so the
// model keeps only sizes and MD5s. Each key is used by one worker at a
// time, so per key the order of acknowledgements is the order of commits
// and at most one operation per key is in flight at a kill.
package crash

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/logging"
)

// Config sets up a run.
type Config struct {
	Bin     string // the jog binary
	DataDir string // a fresh, empty directory
	Cycles  int    // kill -9 / restart cycles
	Workers int    // concurrent clients
	Keys    int    // size of the key space
	// Each cycle runs the workload for a random time in [MinRun, MaxRun]
	// before the kill.
	MinRun, MaxRun time.Duration
	Seed           uint64
	// FsckEvery: run `jog fsck --deep` on the data dir right after every
	// FsckEvery-th kill, before the restart (0: never). The check opens the
	// database, so SQLite's crash recovery then happens in fsck, not the
	// server: every other cycle is a good mix.
	FsckEvery int
	Log       io.Writer // progress lines; nil for none
}

// Result counts what a run did and found. Lost, Corrupt, Violations and
// CrashDamage must be zero and FinalFsckExit 0.
type Result struct {
	Cycles       int
	StartupKills int   // extra kills during start-up (recovery), before the server was ready
	Ops          int64 // requests sent by the workload
	// Acked counts acknowledged mutations: PUTs, completed multipart
	// uploads, copies and DELETEs.
	Acked, AckedPuts, AckedMultipart, AckedCopies, AckedDeletes int64
	// Verified: after a restart, the latest acknowledged state of a key
	// written in the cycle read back exactly. Rechecked: the same for keys
	// the cycle did not touch.
	Verified, Rechecked int
	// Superseded: an acknowledged state replaced by a later write that
	// was in flight at the kill (allowed).
	Superseded int
	// UnackPresent / UnackAbsent: operations in flight at the kill whose
	// effect is / is not there after the restart (both allowed).
	UnackPresent, UnackAbsent int
	// NotSent: mutations refused at connect by the dead server (no effect).
	NotSent int
	// Pauses: cycles whose last stallAfter brought no answer while
	// requests waited (answers resumed later). Stalls: no answer for
	// stuckAfter more; the server was then stopped with SIGQUIT, which
	// writes its goroutines to server.log.
	Pauses, Stalls int
	Lost           int // acknowledged states missing after a restart
	Corrupt        int // bodies that match no whole version, or not their ETag
	LiveReads      int // GETs during the workload that matched the model
	// CrashOrphans and CrashTemp are what fsck found right after kills
	// (recovery removes them); CrashDamage any other problem it found.
	CrashChecks, CrashOrphans, CrashTemp, CrashDamage int
	// UploadsAborted: uploads a kill interrupted, aborted after the restart.
	UploadsAborted int
	FinalFsckExit  int
	FinalFsck      string // its summary
	Violations     []string
}

func (r *Result) violate(format string, args ...any) {
	if len(r.Violations) < 50 {
		r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
	}
}

// OK reports whether the run found no inconsistency.
func (r *Result) OK() bool {
	return r.Lost == 0 && r.Corrupt == 0 && len(r.Violations) == 0 && r.CrashDamage == 0 && r.FinalFsckExit == 0
}

func (r *Result) String() string {
	return fmt.Sprintf("cycles %d (+%d kills during start-up), ops %d, writes acknowledged %d (put %d, multipart %d, copy %d, delete %d), "+
		"verified %d, rechecked %d, lost %d, corrupt %d, superseded-by-unacknowledged %d, "+
		"unacknowledged-present %d, unacknowledged-absent %d, not sent %d, live reads %d, pauses %d, stalls %d, "+
		"post-kill fsck runs %d (orphans %d, temp files %d, damage %d), uploads aborted %d, final fsck exit %d",
		r.Cycles, r.StartupKills, r.Ops, r.Acked, r.AckedPuts, r.AckedMultipart, r.AckedCopies, r.AckedDeletes,
		r.Verified, r.Rechecked, r.Lost, r.Corrupt, r.Superseded, r.UnackPresent, r.UnackAbsent, r.NotSent, r.LiveReads, r.Pauses, r.Stalls,
		r.CrashChecks, r.CrashOrphans, r.CrashTemp, r.CrashDamage, r.UploadsAborted, r.FinalFsckExit)
}

// A cycle whose last stallAfter brought no answer while requests wait is a
// pause; if stuckAfter more bring none, the server is stuck (a violation).
const (
	stallAfter = 2 * time.Second
	stuckAfter = 30 * time.Second
)

const (
	bucket    = "crash"
	accessKey = "CRASHTESTACCESSKEY01"
	secretKey = "crash-test-secret-key-000000000000000000"
	region    = "us-east-1"
	minPart   = 5 << 20
)

// part is a deterministic run of bytes.
type part struct {
	seed [32]byte
	size int64
}

func (p part) bytes() []byte {
	b := make([]byte, p.size)
	rand.NewChaCha8(p.seed).Read(b)
	return b
}

// version is one state of a key: a whole object, or absent (deleted).
type version struct {
	gen       uint64
	deleted   bool
	parts     []part
	multipart bool // ETag is the MD5 of the part MD5s, "-N"
	size      int64
	md5       [16]byte // of the whole content
	etag      string
}

func (v *version) String() string {
	switch {
	case v == nil:
		return "never written"
	case v.deleted:
		return fmt.Sprintf("deleted (gen %d)", v.gen)
	}
	return fmt.Sprintf("gen %d, %d bytes, etag %s", v.gen, v.size, v.etag)
}

func seedOf(key string, gen uint64, n int) [32]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], gen)
	binary.LittleEndian.PutUint64(b[8:], uint64(n))
	return sha256.Sum256(append([]byte(key), b[:]...))
}

// newVersion describes a PUT (one part) or multipart upload of key.
func newVersion(key string, gen uint64, multipart bool, sizes ...int64) (*version, [][]byte) {
	v := &version{gen: gen, multipart: multipart}
	whole, partMD5s := md5.New(), md5.New()
	var bodies [][]byte
	for i, s := range sizes {
		p := part{seed: seedOf(key, gen, i), size: s}
		b := p.bytes()
		bodies = append(bodies, b)
		v.parts = append(v.parts, p)
		v.size += s
		whole.Write(b)
		sum := md5.Sum(b)
		partMD5s.Write(sum[:])
	}
	copy(v.md5[:], whole.Sum(nil))
	v.etag = hex.EncodeToString(v.md5[:])
	if multipart {
		v.etag = hex.EncodeToString(partMD5s.Sum(nil)) + "-" + strconv.Itoa(len(sizes))
	}
	return v, bodies
}

// copyOf is what CopyObject of src makes: the same bytes, a plain ETag.
func copyOf(src *version, gen uint64) *version {
	return &version{gen: gen, parts: src.parts, size: src.size, md5: src.md5, etag: hex.EncodeToString(src.md5[:])}
}

type key struct {
	name  string
	busy  bool     // a worker is using it
	state *version // known state: nil = never written
	// inflight is an operation whose outcome is unknown (sent, no
	// answer): the key is not used again until a restart resolves it.
	inflight *version
	acked    bool // state was acknowledged during the current cycle
	broken   bool // a violation was found; not used further
}

type harness struct {
	cfg    Config
	res    Result
	addr   string
	client *s3.Client
	http   *timedClient
	gen    atomic.Uint64
	ops    atomic.Int64

	mu   sync.Mutex // guards keys and res
	keys []*key

	stop atomic.Bool // workers stop starting operations
	cmd  *exec.Cmd
	exit chan error // the server process's Wait
}

// Run runs the harness. An error means the harness itself could not work
// (build, start, a verification read failing); inconsistencies are in the
// Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Keys <= 0 {
		cfg.Keys = 64
	}
	if cfg.MaxRun < cfg.MinRun {
		cfg.MaxRun = cfg.MinRun
	}
	h := &harness{cfg: cfg}
	for i := range cfg.Keys {
		h.keys = append(h.keys, &key{name: fmt.Sprintf("obj/%03d", i)})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h.addr = ln.Addr().String()
	ln.Close()
	h.http = &timedClient{c: awshttp.NewBuildableClient().WithTimeout(2 * time.Minute)}
	h.client = newClient("http://"+h.addr, h.http)
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5bd1e995))
	h.logf("crash harness: %d cycles, %d workers, %d keys, run %v–%v per cycle, seed %d, data %s",
		cfg.Cycles, cfg.Workers, cfg.Keys, cfg.MinRun, cfg.MaxRun, cfg.Seed, cfg.DataDir)

	for cycle := 1; cycle <= cfg.Cycles; cycle++ {
		if cycle > 1 && rng.IntN(4) == 0 {
			if err := h.killDuringStartup(rng); err != nil {
				return &h.res, err
			}
		}
		if err := h.start(ctx); err != nil {
			return &h.res, err
		}
		if cycle == 1 {
			if _, err := h.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				h.kill()
				return &h.res, fmt.Errorf("create bucket: %w", err)
			}
		} else if err := h.verify(ctx); err != nil {
			h.kill()
			return &h.res, err
		}
		run := cfg.MinRun + time.Duration(rng.Int64N(int64(cfg.MaxRun-cfg.MinRun)+1))
		before := h.res
		ops := h.ops.Load()
		h.http.slowest.Store(0)
		h.http.slow.Store(0)
		h.workload(ctx, run, rng.Uint64())
		h.res.Cycles = cycle
		inflight := 0
		for _, k := range h.keys {
			if k.inflight != nil {
				inflight++
			}
		}
		h.logf("cycle %d: killed after %v: %d ops, %d acknowledged, %d in flight; slowest answer %v, %d over 1 s",
			cycle, run.Round(time.Millisecond), h.ops.Load()-ops, h.res.Acked-before.Acked, inflight,
			time.Duration(h.http.slowest.Load()).Round(time.Millisecond), h.http.slow.Load())
		if cfg.FsckEvery > 0 && cycle%cfg.FsckEvery == 0 {
			if err := h.fsckAfterKill(ctx); err != nil {
				return &h.res, err
			}
		}
	}
	// The last restart: verify, stop gracefully, then fsck must be clean.
	if err := h.start(ctx); err != nil {
		return &h.res, err
	}
	if err := h.verify(ctx); err != nil {
		h.kill()
		return &h.res, err
	}
	if err := h.stopGracefully(); err != nil {
		return &h.res, err
	}
	code, sum, _, err := h.fsck(ctx)
	if err != nil {
		return &h.res, err
	}
	h.res.FinalFsckExit = code
	h.res.FinalFsck = sum
	h.logf("final fsck --deep: exit %d: %s", code, sum)
	h.res.Ops = h.ops.Load()
	return &h.res, nil
}

func (h *harness) logf(format string, args ...any) {
	if h.cfg.Log != nil {
		fmt.Fprintf(h.cfg.Log, format+"\n", args...)
	}
}

// timedClient records the slowest answer (response headers) of a cycle,
// the time of the last answer and the requests waiting for one.
type timedClient struct {
	c          *awshttp.BuildableClient
	slowest    atomic.Int64 // nanoseconds
	slow       atomic.Int64 // answers slower than a second
	lastAnswer atomic.Int64 // Unix nanoseconds
	waiting    atomic.Int64
}

func (t *timedClient) Do(r *http.Request) (*http.Response, error) {
	start := time.Now()
	t.waiting.Add(1)
	resp, err := t.c.Do(r)
	t.waiting.Add(-1)
	if err == nil {
		t.lastAnswer.Store(time.Now().UnixNano())
		d := int64(time.Since(start))
		if d > int64(time.Second) {
			t.slow.Add(1)
		}
		for {
			cur := t.slowest.Load()
			if d <= cur || t.slowest.CompareAndSwap(cur, d) {
				break
			}
		}
	}
	return resp, err
}

// newClient builds the client from explicit options only (no shared AWS
// config or environment), with retries off.
func newClient(url string, hc *timedClient) *s3.Client {
	return s3.New(s3.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		HTTPClient:   hc,
		BaseEndpoint: aws.String(url),
		UsePathStyle: true,
		Retryer:      aws.NopRetryer{}, // one attempt: an error means the outcome is unknown
		Logger:       logging.Nop{},

		DisableLogOutputChecksumValidationSkipped: true,
	})
}

// ---- the server process ----

func (h *harness) logPath() string { return filepath.Join(filepath.Dir(h.cfg.DataDir), "server.log") }

// spawn starts `jog server` on the data dir.
func (h *harness) spawn() error {
	logf, err := os.OpenFile(h.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(h.cfg.Bin, "server", "--addr", h.addr, "--data-dir", h.cfg.DataDir,
		"--access-key", accessKey, "--secret-key", secretKey, "--region", region, "--log-level", "warn", "--fsync", "always")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	h.cmd, h.exit = cmd, make(chan error, 1)
	go func() { h.exit <- cmd.Wait() }()
	return nil
}

// killDuringStartup starts the server and kills it after up to 40 ms:
// while it opens the database and runs recovery.
func (h *harness) killDuringStartup(rng *rand.Rand) error {
	if err := h.spawn(); err != nil {
		return err
	}
	time.Sleep(time.Duration(rng.Int64N(int64(40 * time.Millisecond))))
	h.kill()
	h.res.StartupKills++
	return nil
}

// start starts the server and waits until it is ready.
func (h *harness) start(ctx context.Context) error {
	if err := h.spawn(); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-h.exit:
			return fmt.Errorf("jog server exited during start-up (%v); see %s", err, h.logPath())
		default:
		}
		resp, err := http.Get("http://" + h.addr + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			h.kill()
			return fmt.Errorf("jog server not ready after 30 s: %v", err)
		}
		if ctx.Err() != nil {
			h.kill()
			return ctx.Err()
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Recovery runs before the server listens: tmp/ must be empty now.
	if entries, err := os.ReadDir(filepath.Join(h.cfg.DataDir, "tmp")); err != nil || len(entries) != 0 {
		h.res.violate("after restart tmp/ holds %d files (%v)", len(entries), err)
	}
	return nil
}

func (h *harness) kill() {
	h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.exit
}

func (h *harness) stopGracefully() error {
	h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-h.exit:
		if err != nil {
			return fmt.Errorf("jog server stop: %w", err)
		}
		return nil
	case <-time.After(time.Minute):
		h.kill()
		return errors.New("jog server did not stop within a minute of SIGTERM")
	}
}

// fsckReport is the part of `jog fsck --json` the harness reads.
type fsckReport struct {
	Problems []struct {
		Kind   string `json:"kind"`
		Key    string `json:"key"`
		Detail string `json:"detail"`
	} `json:"problems"`
	Summary struct {
		Objects      int   `json:"objects"`
		Parts        int   `json:"parts"`
		Uploads      int   `json:"uploads"`
		BytesVerfied int64 `json:"bytes_verified"`
		Orphans      int   `json:"orphans"`
		TempFiles    int   `json:"temp_files"`
	} `json:"summary"`
	Remaining int    `json:"remaining"`
	Status    string `json:"status"`
}

func (h *harness) fsck(ctx context.Context) (int, string, fsckReport, error) {
	var rep fsckReport
	cmd := exec.CommandContext(ctx, h.cfg.Bin, "fsck", "--data-dir", h.cfg.DataDir, "--deep", "--json")
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return 0, "", rep, err
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return code, "", rep, fmt.Errorf("jog fsck output: %v: %s", err, out)
	}
	s := rep.Summary
	sum := fmt.Sprintf("%s: %d objects, %d parts, %d uploads in progress, %d bytes verified, %d orphans, %d temp files, %d remaining",
		rep.Status, s.Objects, s.Parts, s.Uploads, s.BytesVerfied, s.Orphans, s.TempFiles, rep.Remaining)
	return code, sum, rep, nil
}

// fsckAfterKill checks the data a kill left, before recovery: no object
// may be damaged; orphans and temp files are expected.
func (h *harness) fsckAfterKill(ctx context.Context) error {
	code, sum, rep, err := h.fsck(ctx)
	if err != nil {
		return err
	}
	h.res.CrashChecks++
	for _, p := range rep.Problems {
		switch p.Kind {
		case "orphan":
			h.res.CrashOrphans++
		case "temp":
			h.res.CrashTemp++
		default:
			h.res.CrashDamage++
			h.res.violate("fsck after kill: %s %q: %s", p.Kind, p.Key, p.Detail)
		}
	}
	if code == 2 {
		return fmt.Errorf("fsck after kill failed: %s", sum)
	}
	h.logf("  fsck after kill (before recovery): %s", sum)
	return nil
}

// ---- the workload ----

func (h *harness) workload(ctx context.Context, run time.Duration, seed uint64) {
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
	h.stop.Store(true) // requests already sent stay in flight through the kill
	last := time.Unix(0, h.http.lastAnswer.Load())
	if last.Before(started) {
		last = started
	}
	if quiet := time.Since(last); quiet > stallAfter && h.http.waiting.Load() > 0 {
		// No answer for a while with requests waiting: slow, or stuck?
		// Wait up to stuckAfter for any answer before the kill.
		h.res.Pauses++
		deadline := time.Now().Add(stuckAfter)
		for h.http.lastAnswer.Load() <= last.UnixNano() && h.http.waiting.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if h.http.lastAnswer.Load() <= last.UnixNano() && h.http.waiting.Load() > 0 {
			// Stuck: SIGQUIT makes the server write its goroutines to
			// server.log as it dies.
			h.res.Stalls++
			h.res.violate("stall: no answer for %v with %d requests waiting; goroutine dump in %s",
				time.Since(last).Round(time.Millisecond), h.http.waiting.Load(), h.logPath())
			h.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-h.exit:
			case <-time.After(10 * time.Second):
				h.kill()
			}
			wg.Wait()
			return
		}
		h.logf("  pause: no answer for %v with requests waiting, then answers resumed", quiet.Round(time.Millisecond))
	}
	h.kill()
	wg.Wait()
}

func (h *harness) worker(ctx context.Context, rng *rand.Rand) {
	for !h.stop.Load() && ctx.Err() == nil {
		switch n := rng.IntN(100); {
		case n < 40:
			h.withKeys(rng, 1, func(k []*key) { h.put(ctx, rng, k[0]) })
		case n < 55:
			h.withKeys(rng, 1, func(k []*key) { h.del(ctx, k[0]) })
		case n < 65:
			h.withKeys(rng, 1, func(k []*key) { h.multipart(ctx, rng, k[0]) })
		case n < 80:
			h.withKeys(rng, 2, func(k []*key) { h.copy(ctx, k[0], k[1]) })
		default:
			h.withKeys(rng, 1, func(k []*key) { h.read(ctx, k[0]) })
		}
	}
}

// withKeys runs fn with n distinct keys that no other worker uses and
// whose state is known.
func (h *harness) withKeys(rng *rand.Rand, n int, fn func([]*key)) {
	var got []*key
	h.mu.Lock()
	for tries := 0; tries < 50 && len(got) < n; tries++ {
		k := h.keys[rng.IntN(len(h.keys))]
		if !k.busy && k.inflight == nil && !k.broken {
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
		*counter++
	case notSent(err):
		h.res.NotSent++
	case definite(err):
		h.res.violate("%s: refused with %v while the server was up", k.name, err)
	default:
		k.inflight = v
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
	h.ops.Add(1)
	_, err := h.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k.name),
		Body: bytes.NewReader(bodies[0])})
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
	sizes := []int64{minPart + rng.Int64N(64<<10), 1 + rng.Int64N(1<<20)}
	if rng.IntN(3) == 0 {
		sizes = []int64{minPart, minPart + rng.Int64N(64<<10), rng.Int64N(256 << 10)}
	}
	v, bodies := newVersion(k.name, gen, true, sizes...)
	h.ops.Add(1)
	up, err := h.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(k.name)})
	if err != nil {
		return // the key is untouched either way
	}
	var parts []types.CompletedPart
	for i, b := range bodies {
		h.ops.Add(1)
		out, err := h.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(k.name),
			UploadId: up.UploadId, PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(b)})
		if err != nil {
			if definite(err) {
				h.mu.Lock()
				h.res.violate("%s: UploadPart refused: %v", k.name, err)
				h.mu.Unlock()
			}
			return // the upload stays; it is aborted after the restart
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag,
			ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C, ChecksumCRC64NVME: out.ChecksumCRC64NVME,
			ChecksumSHA1: out.ChecksumSHA1, ChecksumSHA256: out.ChecksumSHA256})
	}
	h.ops.Add(1)
	out, err := h.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(k.name),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err == nil {
		h.mu.Lock()
		if got := strings.Trim(aws.ToString(out.ETag), `"`); got != v.etag {
			h.res.violate("%s: CompleteMultipartUpload ETag %s, want %s", k.name, got, v.etag)
		}
		h.mu.Unlock()
	}
	h.settle(k, v, err, &h.res.AckedMultipart)
}

func (h *harness) copy(ctx context.Context, src, dst *key) {
	gen := h.gen.Add(1)
	h.ops.Add(1)
	_, err := h.client.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(dst.name),
		CopySource: aws.String(bucket + "/" + src.name)})
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
	h.settle(dst, copyOf(src.state, gen), err, &h.res.AckedCopies)
}

// read checks a GET during the workload against the key's known state.
func (h *harness) read(ctx context.Context, k *key) {
	h.ops.Add(1)
	obs, err := h.get(ctx, k.name)
	if err != nil {
		return // the kill, most likely
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if obs.torn {
		h.res.Corrupt++
		h.res.violate("GET %s during the workload: %s", k.name, obs)
		return
	}
	if !obs.matches(k.state) {
		h.res.violate("GET %s during the workload: %s, want %s", k.name, obs, k.state)
		return
	}
	h.res.LiveReads++
}

// observed is what a GET returned.
type observed struct {
	present bool
	size    int64
	md5     [16]byte
	etag    string
	torn    bool // the body's MD5 is not its single-part ETag
}

func (o observed) String() string {
	if !o.present {
		return "absent"
	}
	return fmt.Sprintf("%d bytes, md5 %x, etag %s", o.size, o.md5, o.etag)
}

func (o observed) matches(v *version) bool {
	if v == nil || v.deleted {
		return !o.present
	}
	return o.present && o.size == v.size && o.md5 == v.md5 && o.etag == v.etag
}

func (h *harness) get(ctx context.Context, name string) (observed, error) {
	out, err := h.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(name)})
	if statusOf(err) == http.StatusNotFound {
		return observed{}, nil
	}
	if err != nil {
		return observed{}, err
	}
	defer out.Body.Close()
	m := md5.New()
	n, err := io.Copy(m, out.Body)
	if err != nil {
		return observed{}, err
	}
	o := observed{present: true, size: n, etag: strings.Trim(aws.ToString(out.ETag), `"`)}
	copy(o.md5[:], m.Sum(nil))
	if !strings.Contains(o.etag, "-") && o.etag != hex.EncodeToString(o.md5[:]) {
		o.torn = true
	}
	if out.ContentLength != nil && *out.ContentLength != n {
		o.torn = true
	}
	return o, nil
}

// ---- after a restart ----

// verify reads every key back and resolves what was in flight.
func (h *harness) verify(ctx context.Context) error {
	type result struct {
		k   *key
		obs observed
		err error
	}
	results := make(chan result)
	work := make(chan *key)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				obs, err := h.get(ctx, k.name)
				results <- result{k, obs, err}
			}
		}()
	}
	go func() {
		for _, k := range h.keys {
			if !k.broken {
				work <- k
			}
		}
		close(work)
		wg.Wait()
		close(results)
	}()
	present := map[string]bool{}
	var firstErr error
	verified, rechecked, unackP, unackA := 0, 0, 0, 0
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("GET %s after restart: %w", r.k.name, r.err)
			}
			continue
		}
		k, obs := r.k, r.obs
		present[k.name] = obs.present
		h.mu.Lock()
		matchState, matchInflight := obs.matches(k.state), k.inflight != nil && obs.matches(k.inflight)
		switch {
		case obs.torn:
			h.res.Corrupt++
			h.res.violate("GET %s after restart: body does not match its ETag: %s (acknowledged %s, in flight %s)",
				k.name, obs, k.state, k.inflight)
			k.broken = true
		case matchInflight && !matchState:
			unackP++
			h.res.UnackPresent++
			if k.acked {
				h.res.Superseded++
			}
			k.state = k.inflight
		case matchState:
			if k.acked {
				verified++
				h.res.Verified++
			} else {
				rechecked++
				h.res.Rechecked++
			}
			if k.inflight != nil {
				unackA++
				h.res.UnackAbsent++
			}
		default:
			if obs.present && (k.state == nil || k.state.deleted) && (k.inflight == nil || k.inflight.deleted) {
				h.res.violate("GET %s after restart: deleted key is back: %s (acknowledged %s, in flight %s)", k.name, obs, k.state, k.inflight)
			} else {
				h.res.violate("GET %s after restart: %s; acknowledged %s, in flight %s", k.name, obs, k.state, k.inflight)
			}
			h.res.Lost++
			k.broken = true
		}
		k.inflight, k.acked = nil, false
		h.mu.Unlock()
	}
	if firstErr != nil {
		return firstErr
	}
	// The listing agrees with the GETs.
	p := s3.NewListObjectsV2Paginator(h.client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	listed := map[string]bool{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list after restart: %w", err)
		}
		for _, o := range page.Contents {
			listed[aws.ToString(o.Key)] = true
		}
	}
	for name, ok := range present {
		if ok != listed[name] {
			h.res.violate("after restart GET says %s present=%v, listing says %v", name, ok, listed[name])
		}
	}
	// Abort the uploads kills interrupted: workers never keep one across
	// a cycle.
	aborted := 0
	up := s3.NewListMultipartUploadsPaginator(h.client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	for up.HasMorePages() {
		page, err := up.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list uploads after restart: %w", err)
		}
		for _, u := range page.Uploads {
			_, err := h.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: u.Key, UploadId: u.UploadId})
			if err != nil {
				return fmt.Errorf("abort upload of %s: %w", aws.ToString(u.Key), err)
			}
			aborted++
		}
	}
	h.res.UploadsAborted += aborted
	h.logf("  restart: verified %d, rechecked %d, unacknowledged present %d / absent %d, uploads aborted %d",
		verified, rechecked, unackP, unackA, aborted)
	return nil
}
