package config

import (
	"errors"
	"fmt"
	"net"

	"github.com/jogstore/jog/internal/kms/kmip"
)

// kmipSettings are the rows of the external KMS (internal/kms/kmip,
// docs/adr/0029-kmip.md): with an endpoint, SSE-KMS key IDs name keys in
// that KMIP server, and SSE-S3 stays on the built-in KMS.
func kmipSettings(k *kmip.Config) []setting {
	return []setting{
		{name: "kms-kmip-endpoint", ptr: &k.Endpoint, usage: "host:port of a KMIP server (KMIP 1.4, mutual TLS) holding the SSE-KMS keys: a key ID names the AES key of that Name there; SSE-S3 stays on the built-in KMS (empty: SSE-KMS keys are the built-in KMS's)"},
		{name: "kms-kmip-ca", ptr: &k.CA, usage: "PEM file of the CA certificates the KMIP server's certificate must chain to (empty: the system's roots)"},
		{name: "kms-kmip-cert", ptr: &k.Cert, usage: "PEM file of the client certificate JOG presents to the KMIP server (required with --kms-kmip-endpoint)"},
		{name: "kms-kmip-key", ptr: &k.Key, usage: "PEM file of the private key of --kms-kmip-cert"},
		{name: "kms-kmip-server-name", ptr: &k.ServerName, usage: "name the KMIP server's certificate must carry (empty: the host of --kms-kmip-endpoint)"},
		{name: "kms-kmip-timeout", ptr: &k.Timeout, usage: "longest a KMIP operation may take, connecting included; past it the S3 request fails with 503 ServiceUnavailable"},
	}
}

// validateKMIP checks the external KMS's settings.
func (c Config) validateKMIP() []error {
	k := c.KMIP
	if k.Endpoint == "" {
		return nil
	}
	var errs []error
	if _, _, err := net.SplitHostPort(k.Endpoint); err != nil {
		errs = append(errs, fmt.Errorf("--kms-kmip-endpoint %q: want host:port", k.Endpoint))
	}
	if k.Cert == "" || k.Key == "" {
		errs = append(errs, errors.New("--kms-kmip-endpoint needs --kms-kmip-cert and --kms-kmip-key: KMIP servers authenticate their clients by certificate"))
	}
	if k.Timeout <= 0 {
		errs = append(errs, errors.New("--kms-kmip-timeout must be positive"))
	}
	return errs
}
