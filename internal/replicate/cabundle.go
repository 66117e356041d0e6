package replicate

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"

	"github.com/benbjohnson/litestream"
)

// caBundleVar is the AWS SDK's variable naming a PEM file of extra CAs.
// Litestream's S3 client cannot take it: the SDK's config loader, reading
// it, fails on the plain *http.Client Litestream passes ("unable to add
// custom RootCAs HTTPClient", ADR 0021). So the client is made with the
// variable hidden: an http:// endpoint has no use for it, and an https://
// one is verified against the system's trust store (SSL_CERT_FILE), as
// the error says when that fails.
const caBundleVar = "AWS_CA_BUNDLE"

// envMu serializes the hiding of caBundleVar: the environment is the
// process's.
var envMu sync.Mutex

// initClient makes Litestream's S3 client for t (Init), with
// AWS_CA_BUNDLE out of its sight. For an https:// target a bundle that is
// set must be a readable PEM file of certificates (the variable may be
// meant for other clients of this host); it is not used for the replica.
func initClient(ctx context.Context, c litestream.ReplicaClient, t Target) error {
	bundle := os.Getenv(caBundleVar)
	https := t.Endpoint == "" || isHTTPS(t.Endpoint)
	if bundle != "" && https {
		if err := checkBundle(bundle); err != nil {
			return err
		}
	}
	err := withoutVar(caBundleVar, func() error { return c.Init(ctx) })
	if err != nil && bundle != "" && https {
		return fmt.Errorf("%w (%s=%s is not used for the replica: Litestream's S3 client cannot take it; put the CA in the system's trust store or SSL_CERT_FILE)", err, caBundleVar, bundle)
	}
	return err
}

// isHTTPS reports whether endpoint is an https:// URL.
func isHTTPS(endpoint string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && u.Scheme == "https"
}

// checkBundle reports a CA bundle that cannot be read or holds no PEM
// certificate, naming the variable.
func checkBundle(path string) error {
	pem, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", caBundleVar, err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s=%s: no PEM certificate in the file", caBundleVar, path)
	}
	return nil
}

// withoutVar runs f with the environment variable name unset, and sets it
// back after.
func withoutVar(name string, f func() error) error {
	envMu.Lock()
	defer envMu.Unlock()
	v, ok := os.LookupEnv(name)
	if !ok {
		return f()
	}
	if err := os.Unsetenv(name); err != nil {
		return err
	}
	err := f()
	return errors.Join(err, os.Setenv(name, v))
}
