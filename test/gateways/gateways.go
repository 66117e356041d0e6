package gateways

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

const (
	accessKey = "linearizeaccess01"
	secretKey = "linearizesecret0000000000000000001"
	region    = "us-east-1"
)

// gateway is one `jog server` process over the shared metadata database
// and data directory, on a port of its own that it keeps across restarts.
type gateway struct {
	n       int
	bin     string
	dataDir string
	meta    string
	addr    string
	logPath string

	mu    sync.Mutex
	cmd   *exec.Cmd
	exit  chan error
	kills int
}

func newGateway(n int, bin, dataDir, meta, logDir string) (*gateway, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	return &gateway{n: n, bin: bin, dataDir: dataDir, meta: meta, addr: addr,
		logPath: filepath.Join(logDir, fmt.Sprintf("gateway%d.log", n))}, nil
}

func (g *gateway) url() string { return "http://" + g.addr }

// start starts the gateway and waits until it reports ready.
func (g *gateway) start(ctx context.Context) error {
	logf, err := os.OpenFile(g.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(g.bin, "server", "--addr", g.addr, "--data-dir", g.dataDir, "--meta", g.meta,
		"--access-key", accessKey, "--secret-key", secretKey, "--region", region, "--log-level", "warn", "--fsync", "always",
		// The console on the S3 port: a port of its own would be the next,
		// which the gateway's address, free when chosen, does not reserve.
		"--console-addr", "same")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait(); logf.Close() }()
	g.mu.Lock()
	g.cmd, g.exit = cmd, exit
	g.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exit:
			return fmt.Errorf("gateway %d exited during start-up (%v); see %s", g.n, err, g.logPath)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if resp, err := http.Get(g.url() + "/health/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gateway %d not ready after 30 s; see %s", g.n, g.logPath)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// take detaches the running process, if any, for kill or stop.
func (g *gateway) take() (*exec.Cmd, chan error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cmd, exit := g.cmd, g.exit
	g.cmd = nil
	return cmd, exit
}

// kill sends SIGKILL and waits for the process to go.
func (g *gateway) kill() {
	cmd, exit := g.take()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exit
	g.kills++
}

// stop stops the gateway gracefully (SIGTERM), or kills it after 10 s.
func (g *gateway) stop() {
	cmd, exit := g.take()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exit:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exit
	}
}
