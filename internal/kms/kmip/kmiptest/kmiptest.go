// Package kmiptest starts a real KMIP server for tests: Debian's PyKMIP
// (python3-pykmip, `pykmip-server`), on a free loopback port, with a
// throwaway CA, server and client certificate; and manages its keys as
// an operator would, over KMIP.
package kmiptest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	kmipgo "github.com/ovh/kmip-go"
	"github.com/ovh/kmip-go/kmipclient"

	"github.com/jogstore/jog/internal/kms/kmip"
)

// Server is a running PyKMIP server.
type Server struct {
	// Config reaches the server as JOG's client (the same client
	// certificate the operator's calls use: PyKMIP lets only an object's
	// creator use it).
	Config kmip.Config
	// Log is the server's log file.
	Log string

	t       testing.TB
	cmd     *exec.Cmd
	exit    chan error
	stopped bool
}

// Start starts a PyKMIP server that the test's end stops; it skips the
// test when pykmip-server is not installed (.ci/run installs it).
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("pykmip-server")
	if err != nil {
		t.Skip("pykmip-server not installed (Debian: apt-get install python3-pykmip): skipping the KMIP tests")
	}
	dir := t.TempDir()
	s := &Server{t: t, Log: filepath.Join(dir, "server.log"), exit: make(chan error, 1)}
	s.Config = kmip.Config{
		Endpoint: net.JoinHostPort("127.0.0.1", fmt.Sprint(freePort(t))),
		CA:       filepath.Join(dir, "ca.pem"),
		Cert:     filepath.Join(dir, "client.pem"),
		Key:      filepath.Join(dir, "client.key"),
		// Generous: the machine running the tests may be loaded, and
		// PyKMIP is slow to start a session.
		Timeout: 30 * time.Second,
	}
	writeCerts(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "policies"), 0o700); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(s.Config.Endpoint)
	conf := fmt.Sprintf(`[server]
hostname=%s
port=%s
certificate_path=%s
key_path=%s
ca_path=%s
auth_suite=TLS1.2
policy_path=%s
enable_tls_client_auth=True
logging_level=INFO
database_path=%s
`, host, port, filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key"), s.Config.CA,
		filepath.Join(dir, "policies"), filepath.Join(dir, "pykmip.db"))
	confPath := filepath.Join(dir, "server.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(bin, "-f", confPath, "-l", s.Log)
	out, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	s.cmd.Stdout, s.cmd.Stderr = out, out
	// A group of its own: PyKMIP forks helpers (a multiprocessing
	// manager, a policy directory monitor) that outlive the main process
	// when only it is signalled.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exit <- s.cmd.Wait() }()
	t.Cleanup(s.Stop)
	s.waitReady()
	return s
}

// waitReady waits until the server accepts connections: PyKMIP takes a
// few seconds to start, more on a loaded machine.
func (s *Server) waitReady() {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := net.DialTimeout("tcp", s.Config.Endpoint, time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		select {
		case err := <-s.exit:
			s.exit <- err
			s.t.Fatalf("pykmip-server exited (%v): %s", err, s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("pykmip-server does not listen on %s: %s", s.Config.Endpoint, s.logTail())
		}
	}
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.Log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop stops the server and its helper processes (SIGTERM to its
// process group, SIGKILL after 30 s) and waits for it; the test's end
// calls it too.
func (s *Server) Stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	pgid := -s.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case err := <-s.exit:
		s.exit <- err
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		s.exit <- <-s.exit
	}
	// Helpers that ignored SIGTERM, or have not exited yet.
	_ = syscall.Kill(pgid, syscall.SIGKILL)
}

// client is an operator's connection to the server.
func (s *Server) client() *kmipclient.Client {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), s.Config.Timeout)
	defer cancel()
	c, err := kmipclient.DialContext(ctx, s.Config.Endpoint, kmipclient.WithRootCAFile(s.Config.CA),
		kmipclient.WithClientCertFiles(s.Config.Cert, s.Config.Key), kmipclient.WithServerName("127.0.0.1"))
	if err != nil {
		s.t.Fatalf("kmiptest: connect: %v\n%s", err, s.logTail())
	}
	return c
}

// CreateKey creates an AES-256 key named name for encryption and
// decryption, activates it (when active), and returns its Unique
// Identifier.
func (s *Server) CreateKey(name string, active bool) string {
	s.t.Helper()
	c := s.client()
	defer c.Close()
	r, err := c.Create().AES(256, kmipgo.CryptographicUsageEncrypt|kmipgo.CryptographicUsageDecrypt).WithName(name).Exec()
	if err != nil {
		s.t.Fatalf("kmiptest: create %s: %v", name, err)
	}
	if active {
		if _, err := c.Activate(r.UniqueIdentifier).Exec(); err != nil {
			s.t.Fatalf("kmiptest: activate %s: %v", name, err)
		}
	}
	return r.UniqueIdentifier
}

// Deactivate revokes the key uid: its State becomes Deactivated.
func (s *Server) Deactivate(uid string) {
	s.t.Helper()
	c := s.client()
	defer c.Close()
	if _, err := c.Revoke(uid).WithRevocationReasonCode(kmipgo.RevocationReasonCodeCessationOfOperation).Exec(); err != nil {
		s.t.Fatalf("kmiptest: revoke %s: %v", uid, err)
	}
}

// writeCerts writes a CA, a server certificate for 127.0.0.1 and a client
// certificate (for client authentication, as PyKMIP requires) it signed,
// with their keys, into dir.
func writeCerts(t testing.TB, dir string) {
	t.Helper()
	caKey := newKey(t)
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "jog test KMIP CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER := sign(t, ca, ca, caKey, caKey)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", caDER)
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	for i, leaf := range []struct {
		name string
		eku  x509.ExtKeyUsage
	}{{"server", x509.ExtKeyUsageServerAuth}, {"client", x509.ExtKeyUsageClientAuth}} {
		key := newKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(int64(i + 2)),
			Subject:      pkix.Name{CommonName: "jog-" + leaf.name},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{leaf.eku},
			IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		}
		writePEM(t, filepath.Join(dir, leaf.name+".pem"), "CERTIFICATE", sign(t, tmpl, caCert, key, caKey))
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, filepath.Join(dir, leaf.name+".key"), "PRIVATE KEY", der)
	}
}

// newKey is an ECDSA P-256 key: PyKMIP's TLS 1.2 suites include
// ECDHE-ECDSA with AES-GCM, which Go speaks.
func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func sign(t testing.TB, tmpl, parent *x509.Certificate, key, parentKey *ecdsa.PrivateKey) []byte {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
