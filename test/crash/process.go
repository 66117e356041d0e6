package crash

// The server process: start, kill -9, graceful stop, fsck of its data dir,
// and the S3 client that times its answers.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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

func (h *harness) logPath() string { return filepath.Join(filepath.Dir(h.cfg.DataDir), "server.log") }

// spawn starts `jog server` on the data dir.
func (h *harness) spawn() error {
	logf, err := os.OpenFile(h.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(h.cfg.Bin, h.metaArgs("server", "--addr", h.addr, "--data-dir", h.cfg.DataDir,
		"--access-key", accessKey, "--secret-key", secretKey, "--region", region, "--log-level", "info", "--fsync", "always",
		"--console=false")...) // no console: its port, the next, is not reserved across restarts
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
	// Temp files go before the server listens: tmp/ must be empty now —
	// unless the data dir is shared (an external --meta), where a dead
	// gateway's leftovers stay for blob.Grace (an hour: another gateway
	// may still be writing them, docs/RELIABILITY.md), which
	// internal/service TestGatewaysShareDataDir checks instead.
	if entries, err := os.ReadDir(filepath.Join(h.cfg.DataDir, "tmp")); h.cfg.Meta == "" && (err != nil || len(entries) != 0) {
		h.res.violate("after restart tmp/ holds %d files (%v)", len(entries), err)
	}
	return nil
}

// sweepsDone counts the background orphan sweeps the server log reports
// as ended, over all starts so far.
func (h *harness) sweepsDone() int {
	b, _ := os.ReadFile(h.logPath())
	return bytes.Count(b, []byte("orphan sweep done"))
}

// waitSwept waits until the server log reports more ended sweeps than
// before: the running server's sweep has removed what the kills left.
func (h *harness) waitSwept(ctx context.Context, before int) error {
	deadline := time.Now().Add(2 * time.Minute)
	for h.sweepsDone() <= before {
		if time.Now().After(deadline) {
			return fmt.Errorf("the orphan sweep has not ended after 2 minutes; see %s", h.logPath())
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
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
		Objects       int   `json:"objects"`
		DeleteMarkers int   `json:"delete_markers"`
		Parts         int   `json:"parts"`
		Uploads       int   `json:"uploads"`
		BytesVerfied  int64 `json:"bytes_verified"`
		Orphans       int   `json:"orphans"`
		TempFiles     int   `json:"temp_files"`
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
