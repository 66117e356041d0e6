package config

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

// TestMetricsSettings: the metrics flags and variables, a negative bucket
// bound refused, and -h never shows the token from the environment.
func TestMetricsSettings(t *testing.T) {
	c, err := parse(t, map[string]string{"JOG_METRICS_TOKEN": "s3cr3t-token", "JOG_METRICS_PUBLIC": "true"}, "--metrics-buckets", "7")
	if err != nil {
		t.Fatal(err)
	}
	if c.MetricsToken != "s3cr3t-token" || !c.MetricsPublic || c.MetricsBuckets != 7 {
		t.Errorf("token %q public %v buckets %d", c.MetricsToken, c.MetricsPublic, c.MetricsBuckets)
	}
	if Default().MetricsBuckets != 100 || Default().MetricsPublic || Default().MetricsToken != "" {
		t.Error("defaults: want 100 buckets, not public, no token")
	}
	if _, err := parse(t, nil, "--metrics-buckets", "-1"); err == nil || !strings.Contains(err.Error(), "--metrics-buckets") {
		t.Errorf("--metrics-buckets -1: %v", err)
	}
	var help bytes.Buffer
	c = Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(&help)
	c.BindFlags(fs, func(k string) string { return map[string]string{"JOG_METRICS_TOKEN": "s3cr3t-token"}[k] })
	fs.PrintDefaults()
	if strings.Contains(help.String(), "s3cr3t-token") || !strings.Contains(help.String(), "metrics-token") {
		t.Errorf("-h shows the token, or no --metrics-token:\n%s", help.String())
	}
}
