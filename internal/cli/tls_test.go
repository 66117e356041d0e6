package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
)

// startServer runs `jog server args...` in this process, as main would,
// and returns its address once it listens; the server stops at cleanup.
func startServer(t *testing.T, stderr io.Writer, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	dir := t.TempDir() // here, not in the goroutine: removed after the server stops
	go func() {
		done <- Run(ctx, append([]string{"server", "--addr", "127.0.0.1:0", "--data-dir", dir, "--fsync", "never"}, args...), pw, stderr)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("jog server exited %d", code)
		}
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if _, addr, ok := strings.Cut(sc.Text(), " listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, pr) }()
			return addr
		}
	}
	t.Fatalf("jog server did not start: %s", stderr)
	return ""
}

// TestTLSReloadOnHangup: SIGHUP makes the server serve the certificate now
// in --tls-cert/--tls-key to new connections, while a connection opened
// before keeps working; a pair that does not load keeps the last good one.
func TestTLSReloadOnHangup(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	testutil.WriteSelfSigned(t, cert, key)
	var stderr testutil.SyncBuffer
	addr := startServer(t, &stderr, "--tls-cert", cert, "--tls-key", key)
	url := "https://" + addr + "/health/live"

	// served fetches url over tr and returns the server's certificate and
	// whether the request reused a connection.
	served := func(tr *http.Transport) (*x509.Certificate, bool) {
		t.Helper()
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, url, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", url, resp.Status)
		}
		return resp.TLS.PeerCertificates[0], reused
	}
	transport := func() *http.Transport {
		return &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // a test's self-signed certificates
	}
	// newCert waits (a SIGHUP is handled asynchronously) until a new
	// connection is served a certificate other than old.
	newCert := func(old *x509.Certificate) *x509.Certificate {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			tr := transport()
			c, _ := served(tr)
			tr.CloseIdleConnections()
			if !c.Equal(old) {
				return c
			}
		}
		t.Fatal("the new certificate is not served after SIGHUP")
		return nil
	}

	h2 := transport()
	h2.ForceAttemptHTTP2 = true
	resp, err := (&http.Client{Transport: h2}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Errorf("over TLS the server speaks %s, not HTTP/2", resp.Proto)
	}
	h2.CloseIdleConnections()

	keepAlive := transport()
	defer keepAlive.CloseIdleConnections()
	first, _ := served(keepAlive)

	testutil.WriteSelfSigned(t, cert, key)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	second := newCert(first)
	onFile, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(second.Raw, onFile.Certificate[0]) {
		t.Error("a new connection is served neither the old nor the new certificate")
	}
	if c, reused := served(keepAlive); !reused || !c.Equal(first) {
		t.Errorf("the connection opened before SIGHUP: reused %v, same certificate %v", reused, c.Equal(first))
	}

	// A broken pair: logged, and the last good certificate stays.
	if err := os.WriteFile(cert, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "reload failed"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no error logged for a broken pair:\n%s", stderr.String())
		}
	}
	tr := transport()
	defer tr.CloseIdleConnections()
	if c, _ := served(tr); !c.Equal(second) {
		t.Error("after a failed reload, a new connection is not served the last good certificate")
	}
}
