// Package natstest runs a real nats-server (Debian's nats-server) for
// tests: on a free local port, stopped and started again on that port to
// test reconnects. Outside CI a missing nats-server skips the test; under
// CI=true it fails it (.ci/run installs it).
package natstest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Server is a running nats-server.
type Server struct {
	t    testing.TB
	bin  string
	port int
	args []string
	cmd  *exec.Cmd
	log  syncBuffer
}

// syncBuffer is the servers' output, written by exec's copying goroutine
// (not testutil.SyncBuffer: testutil imports config, which imports target,
// whose tests import natstest).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// Log is what the server (every start of it) wrote to its stderr.
func (s *Server) Log() string {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.b.String()
}

// StartJetStream starts a nats-server with JetStream, its store in a
// temporary directory kept across Restart: a stream keeps what is
// published to its subjects while no subscriber is there.
func StartJetStream(t testing.TB) *Server {
	return start(t, "-js", "-sd", t.TempDir())
}

// Start starts a nats-server; the test's cleanup stops it.
func Start(t testing.TB) *Server { return start(t) }

// StartWithUser starts a nats-server with JetStream (as StartJetStream)
// that requires the user and password given; SetUser then Restart
// changes them.
func StartWithUser(t testing.TB, user, password string) *Server {
	return start(t, "-js", "-sd", t.TempDir(), "--user", user, "--pass", password)
}

// SetUser makes the next Restart require user and password instead of
// what the server was started with.
func (s *Server) SetUser(user, password string) {
	var args []string
	for i := 0; i < len(s.args); i++ {
		if s.args[i] == "--user" || s.args[i] == "--pass" {
			i++
			continue
		}
		args = append(args, s.args[i])
	}
	s.args = append(args, "--user", user, "--pass", password)
}

func start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nats-server"); serr == nil {
			bin, err = "/usr/sbin/nats-server", nil
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nats-server not found: .ci/run installs Debian's nats-server")
		}
		t.Skip("nats-server not found (apt-get install nats-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{t: t, bin: bin, port: port, args: args}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's nats:// URL.
func (s *Server) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// Stop stops the server (kill: as a crash or a lost network would).
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server (again) on its port and waits until it
// accepts connections.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	cmd := exec.Command(s.bin, append([]string{"-a", "127.0.0.1", "-p", strconv.Itoa(s.port)}, s.args...)...)
	cmd.Stderr = &s.log
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port))
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("nats-server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
