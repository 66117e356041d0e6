package config

import (
	"strings"
	"testing"
	"time"
)

// TestKMIPSettings: the external KMS's settings come from flags and
// variables, and an endpoint without a client certificate, or a bad
// endpoint or timeout, is refused at start-up.
func TestKMIPSettings(t *testing.T) {
	c, err := parse(t, map[string]string{"JOG_KMS_KMIP_CERT": "/etc/jog/kmip.pem"},
		"--kms-kmip-endpoint", "kms.example.com:5696", "--kms-kmip-key", "/etc/jog/kmip.key", "--kms-kmip-timeout", "3s")
	if err != nil {
		t.Fatal(err)
	}
	if c.KMIP.Endpoint != "kms.example.com:5696" || c.KMIP.Cert != "/etc/jog/kmip.pem" || c.KMIP.Key != "/etc/jog/kmip.key" || c.KMIP.Timeout != 3*time.Second {
		t.Errorf("KMIP settings: %+v", c.KMIP)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--kms-kmip-endpoint", "kms.example.com:5696"}, "--kms-kmip-cert"},
		{[]string{"--kms-kmip-endpoint", "kms.example.com", "--kms-kmip-cert", "c", "--kms-kmip-key", "k"}, "host:port"},
		{[]string{"--kms-kmip-endpoint", "kms:5696", "--kms-kmip-cert", "c", "--kms-kmip-key", "k", "--kms-kmip-timeout", "0s"}, "--kms-kmip-timeout"},
	} {
		if _, err := parse(t, nil, bad.args...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want an error naming %s", bad.args, err, bad.want)
		}
	}
	if _, err := parse(t, nil, "--kms-kmip-cert", "c"); err != nil {
		t.Errorf("a certificate without an endpoint (KMIP off): %v", err)
	}
}
