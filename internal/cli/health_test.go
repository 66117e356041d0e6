package cli

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
)

// TestHealth: jog health exits 0 against a ready server, found from the
// same settings as the server (here JOG_ADDR, and https with --tls-cert),
// and 1 when nothing answers.
func TestHealth(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	testutil.WriteSelfSigned(t, cert, key)
	var stderr testutil.SyncBuffer
	plain := startServer(t, &stderr)
	secure := startServer(t, &stderr, "--tls-cert", cert, "--tls-key", key)

	health := func(env string, args ...string) (int, string) {
		t.Setenv("JOG_ADDR", env)
		var out strings.Builder
		code := Run(context.Background(), append([]string{"health"}, args...), io.Discard, &out)
		return code, out.String()
	}
	if code, out := health(plain); code != 0 {
		t.Errorf("plain HTTP server: exit %d, %s", code, out)
	}
	if code, out := health(secure, "--tls-cert", cert, "--tls-key", key); code != 0 {
		t.Errorf("HTTPS server: exit %d, %s", code, out)
	}
	if code, _ := health(secure); code != 1 {
		t.Errorf("HTTPS server probed over HTTP: exit %d, want 1", code)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	if code, _ := health(closed); code != 1 {
		t.Errorf("nothing listening: exit %d, want 1", code)
	}
	if code, _ := health(plain, "--url", "http://"+plain+"/health/nothing"); code != 1 {
		t.Errorf("a 404: exit %d, want 1", code)
	}
}

// TestReadyURL: the probe goes over loopback when the server listens on
// every address.
func TestReadyURL(t *testing.T) {
	for addr, want := range map[string]string{
		":9000":          "http://127.0.0.1:9000/health/ready",
		"0.0.0.0:9000":   "http://127.0.0.1:9000/health/ready",
		"[::]:9000":      "http://[::1]:9000/health/ready",
		"10.0.0.5:9000":  "http://10.0.0.5:9000/health/ready",
		"localhost:9443": "http://localhost:9443/health/ready",
	} {
		if got := readyURL(config.Config{Addr: addr}); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
	if got := readyURL(config.Config{Addr: ":9443", TLSCert: "c.pem"}); got != "https://127.0.0.1:9443/health/ready" {
		t.Errorf("TLS: %s", got)
	}
}
