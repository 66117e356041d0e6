package crash

// The server processes (one, or several gateways sharing the data dir):
// start, kill -9, graceful stop, fsck of the data dir, and the S3 client
// that times its answers and spreads them over the servers.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
)

// timedClient records the slowest answer (response headers) of a cycle,
// the time of the last answer and the requests waiting for one. With
// several servers it is also their load balancer: each request goes to
// one of the running servers at random (its Host header, which the
// signature covers, stays the endpoint's), so a multipart upload's parts
// and the reads after a write take any gateway, as behind a balancer
// without stickiness. With none running, requests go to the endpoint.
type timedClient struct {
	c          *awshttp.BuildableClient
	up         atomic.Pointer[[]string] // the running servers' addresses
	sent       map[string]*atomic.Int64 // requests sent to each server, by address
	slowest    atomic.Int64             // nanoseconds
	slow       atomic.Int64             // answers slower than a second
	lastAnswer atomic.Int64             // Unix nanoseconds
	waiting    atomic.Int64
}

func (t *timedClient) Do(r *http.Request) (*http.Response, error) {
	if up := t.up.Load(); up != nil && len(*up) > 0 {
		if addr := (*up)[rand.IntN(len(*up))]; addr != r.URL.Host {
			r = r.Clone(r.Context())
			r.Host, r.URL.Host = r.URL.Host, addr
		}
	}
	if n := t.sent[r.URL.Host]; n != nil {
		n.Add(1)
	}
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
func newClient(url string, hc s3.HTTPClient) *s3.Client {
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

// metaArgs is args with --meta added when the harness runs against an
// external metadata store.
func (h *harness) metaArgs(args ...string) []string {
	if h.cfg.Meta != "" {
		args = append(args, "--meta", h.cfg.Meta)
	}
	return args
}

// shared reports whether the servers share the data dir as gateways (an
// external metadata store), rather than one holding it alone.
func (h *harness) shared() bool { return h.cfg.Meta != "" }

// server is one `jog server` process of the run, on an address it keeps
// across restarts.
type server struct {
	n       int // 1, 2, …
	addr    string
	log     string // its log file, appended to by every start
	cmd     *exec.Cmd
	exit    chan error // the process's Wait
	gateway string     // its blob store's gateway ID, read from the log at start
}

func (s *server) running() bool { return s.cmd != nil }

// newServer picks a free loopback port for server n.
func newServer(n int, dir string, several bool) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	name := "server.log"
	if several {
		name = fmt.Sprintf("server%d.log", n)
	}
	return &server{n: n, addr: ln.Addr().String(), log: filepath.Join(dir, name)}, nil
}

// spawn starts `jog server` on the data dir.
func (h *harness) spawn(s *server) error {
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(h.cfg.Bin, h.metaArgs("server", "--addr", s.addr, "--data-dir", h.cfg.DataDir,
		"--access-key", accessKey, "--secret-key", secretKey, "--region", region, "--log-level", "info", "--fsync", "always",
		"--console=false", "--allow-insecure-sse-c")...) // SSE-C over loopback HTTP; no console: its port, the next, is not reserved across restarts
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan error, 1)
	s.cmd, s.exit = cmd, exit
	go func() { exit <- cmd.Wait() }()
	return nil
}

// killDuringStartup starts s and kills it after up to 40 ms: while it
// opens the database and runs recovery.
func (h *harness) killDuringStartup(s *server, rng *rand.Rand) error {
	if err := h.spawn(s); err != nil {
		return err
	}
	time.Sleep(time.Duration(rng.Int64N(int64(40 * time.Millisecond))))
	s.kill()
	h.res.StartupKills++
	return nil
}

// restart starts every server that is not running and checks tmp/
// (checkTemp). If startupKill, in a quarter of the calls one of them is
// first killed during its start-up.
func (h *harness) restart(ctx context.Context, rng *rand.Rand, startupKill bool) error {
	if err := h.startDown(ctx, rng, startupKill); err != nil {
		return err
	}
	h.res.TempLeft = h.checkTemp(true)
	return nil
}

// startDown starts every server that is not running, at once, waits until
// they are ready and lets the workload's requests go to them. If
// startupKill, in a quarter of the calls one of them is first killed
// during its start-up.
func (h *harness) startDown(ctx context.Context, rng *rand.Rand, startupKill bool) error {
	var down []*server
	for _, s := range h.servers {
		if !s.running() {
			down = append(down, s)
		}
	}
	if startupKill && len(down) > 0 && rng.IntN(4) == 0 {
		if err := h.killDuringStartup(pick(rng, down), rng); err != nil {
			return err
		}
	}
	return h.startAll(ctx, down)
}

// startAll starts the servers ss at once and waits until they are ready;
// then the workload's requests go to them too.
func (h *harness) startAll(ctx context.Context, ss []*server) error {
	var wg sync.WaitGroup
	errs := make([]error, len(ss))
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.start(ctx, s)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		h.killAll()
		return err
	}
	h.route()
	return nil
}

// route sends the workload's requests to the running servers only, as a
// load balancer that checks their health would.
func (h *harness) route() {
	var up []string
	for _, s := range h.servers {
		if s.running() {
			up = append(up, s.addr)
		}
	}
	h.http.up.Store(&up)
}

// gatewayLine is the start-up line that names the gateway and what its
// recovery removed from tmp/.
var gatewayLine = regexp.MustCompile(`msg="temp files of interrupted writes removed" removed=(\d+) gateway=([0-9a-f]+)`)

// start starts s and waits until it is ready, then reads its gateway ID
// and the temp files its recovery removed from its log.
func (h *harness) start(ctx context.Context, s *server) error {
	logged, _ := os.Stat(s.log)
	if err := h.spawn(s); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-s.exit:
			s.cmd = nil
			return fmt.Errorf("jog server %d exited during start-up (%v); see %s", s.n, err, s.log)
		default:
		}
		resp, err := http.Get("http://" + s.addr + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("jog server %d not ready after 30 s: %v", s.n, err)
		}
		if ctx.Err() != nil {
			s.kill()
			return ctx.Err()
		}
		time.Sleep(5 * time.Millisecond)
	}
	b, err := os.ReadFile(s.log)
	if err != nil {
		return err
	}
	if logged != nil {
		b = b[min(logged.Size(), int64(len(b))):]
	}
	m := gatewayLine.FindSubmatch(b)
	if m == nil {
		return fmt.Errorf("jog server %d: no gateway ID in its log %s", s.n, s.log)
	}
	s.gateway = string(m[2])
	removed, _ := strconv.Atoi(string(m[1]))
	h.mu.Lock()
	h.res.TempRecovered += removed
	h.mu.Unlock()
	return nil
}

// sweepsDone counts the background orphan sweeps s's log reports as
// ended, over all its starts so far.
func (s *server) sweepsDone() int {
	b, _ := os.ReadFile(s.log)
	return bytes.Count(b, []byte("orphan sweep done"))
}

// waitSwept waits until the log of each server in before that runs
// reports more ended sweeps than before says: their sweeps have removed
// what they may of what the kills left.
func (h *harness) waitSwept(ctx context.Context, before map[*server]int) error {
	deadline := time.Now().Add(2 * time.Minute)
	for s, n := range before {
		for s.running() && s.sweepsDone() <= n {
			if time.Now().After(deadline) {
				return fmt.Errorf("the orphan sweep has not ended after 2 minutes; see %s", s.log)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// sweeps is the sweepsDone of every server that is not running: those a
// start will sweep.
func (h *harness) sweeps() map[*server]int {
	n := map[*server]int{}
	for _, s := range h.servers {
		if !s.running() {
			n[s] = s.sweepsDone()
		}
	}
	return n
}

// kill sends SIGKILL to s, if it runs, and waits for it to go.
func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exit
	s.cmd = nil
}

func (h *harness) killAll() {
	for _, s := range h.servers {
		s.kill()
	}
}

// stopAll stops every running server with SIGTERM.
func (h *harness) stopAll() error {
	var errs []error
	for _, s := range h.servers {
		errs = append(errs, s.stopGracefully())
	}
	return errors.Join(errs...)
}

func (s *server) stopGracefully() error {
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exit:
		s.cmd = nil
		if err != nil {
			return fmt.Errorf("jog server %d stop: %w", s.n, err)
		}
		return nil
	case <-time.After(time.Minute):
		s.kill()
		return fmt.Errorf("jog server %d did not stop within a minute of SIGTERM", s.n)
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
		Objects       int   `json:"objects"`
		DeleteMarkers int   `json:"delete_markers"`
		Parts         int   `json:"parts"`
		Uploads       int   `json:"uploads"`
		BytesVerfied  int64 `json:"bytes_verified"`
		Orphans       int   `json:"orphans"`
		TempFiles     int   `json:"temp_files"`
		Live          bool  `json:"live"`
		Unverifiable  int   `json:"unverifiable"`
	} `json:"summary"`
	Remaining int    `json:"remaining"`
	Status    string `json:"status"`
}

func (h *harness) fsck(ctx context.Context) (int, string, fsckReport, error) {
	var rep fsckReport
	cmd := exec.CommandContext(ctx, h.cfg.Bin, h.metaArgs("fsck", "--data-dir", h.cfg.DataDir, "--deep", "--json")...)
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
	sum := fmt.Sprintf("%s: %d object versions, %d delete markers, %d parts, %d uploads in progress, %d bytes verified, %d orphans, %d temp files, %d remaining",
		rep.Status, s.Objects, s.DeleteMarkers, s.Parts, s.Uploads, s.BytesVerfied, s.Orphans, s.TempFiles, rep.Remaining)
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
	if rep.Summary.Live {
		// A shared data dir is checked live: temp files are not problems,
		// blobs younger than blob.Grace are no orphans (docs/RELIABILITY.md).
		h.res.CrashTemp += rep.Summary.TempFiles
	}
	for _, p := range rep.Problems {
		switch p.Kind {
		case "orphan":
			h.res.CrashOrphans++
		case "temp":
			h.res.CrashTemp++
		case "unverifiable": // SSE-C: a note, not damage
			h.res.CrashUnverifiable++
		default:
			h.res.CrashDamage++
			h.res.violate("fsck after kill: %s %q: %s", p.Kind, p.Key, p.Detail)
		}
	}
	if code == 2 {
		return fmt.Errorf("fsck after kill failed: %s", sum)
	}
	when := "after the kill (before recovery)"
	if slices.ContainsFunc(h.servers, (*server).running) {
		when = "at the end of the cycle (beside the idle gateways)"
	}
	h.logf("  fsck %s: %s", when, sum)
	return nil
}
