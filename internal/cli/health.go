package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/jogstore/jog/internal/config"
)

// runHealth probes a server's readiness: GET /health/ready, exit 0 on 200
// and 1 otherwise. It is the HEALTHCHECK of the container image, which has
// no curl. It reads the server's own settings (flags, JOG_* variables,
// --config) to find the address and the scheme, so that the same
// environment serves both.
func runHealth(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, fs := serverFlags("jog health")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: jog health [--url URL] [--timeout D] [jog server's flags]\n\nExit 0 when the server at --addr (https with --tls-cert) answers /health/ready with 200, 1 otherwise.")
		fs.PrintDefaults()
	}
	url := fs.String("url", "", "URL to probe (default: /health/ready at --addr, https when --tls-cert is set)")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long")
	if _, code, done := loadSettings(cfg, fs, args, stdout, stderr); done {
		return code
	}
	if *url == "" {
		*url = readyURL(*cfg)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		fmt.Fprintln(stderr, "jog health:", err)
		return 2
	}
	// The server's certificate names its public host, not the loopback
	// address probed here, and nothing secret is sent.
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // see above
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "jog health:", err)
		return 1
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "jog health: %s: %s\n", *url, resp.Status)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s\n", *url, resp.Status)
	return 0
}

// readyURL is /health/ready at the server's listen address, over loopback
// when it listens on every address.
func readyURL(cfg config.Config) string {
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		host, port = "", cfg.Addr
	}
	switch ip := net.ParseIP(host); {
	case host == "" || (ip != nil && ip.To4() != nil && ip.IsUnspecified()):
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/health/ready"
}
