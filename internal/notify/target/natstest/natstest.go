// Package natstest runs a real nats-server (Debian's nats-server) for
// tests: on a free local port, stopped and started again on that port to
// test reconnects. Outside CI a missing nats-server skips the test; under
// CI=true it fails it (.ci/run installs it).
package natstest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
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
}

// StartJetStream starts a nats-server with JetStream, its store in a
// temporary directory kept across Restart: a stream keeps what is
// published to its subjects while no subscriber is there.
func StartJetStream(t testing.TB) *Server {
	return start(t, "-js", "-sd", t.TempDir())
}

// Start starts a nats-server; the test's cleanup stops it.
func Start(t testing.TB) *Server { return start(t) }

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
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server (again) on its port and waits until it
// accepts connections.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	cmd := exec.Command(s.bin, append([]string{"-a", "127.0.0.1", "-p", strconv.Itoa(s.port)}, s.args...)...)
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
