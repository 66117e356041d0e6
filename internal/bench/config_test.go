package bench

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1": 1, "512B": 512, "1KiB": 1024, "64kib": 64 << 10, "1MiB": 1 << 20, "2GiB": 2 << 30,
		"1KB": 1000, "1MB": 1e6, "5GB": 5e9, "1.5MiB": 3 << 19, " 4 KiB ": 4096, "1k": 1024, "16m": 16 << 20, "1Gi": 1 << 30,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "KiB", "-1", "1XB", "abc", "1e30GiB", "99999999999999999999"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestParseSizeRange(t *testing.T) {
	r, err := ParseSizeRange("1KiB-64KiB")
	if err != nil || r != (SizeRange{1024, 64 << 10}) || r.Fixed() || r.String() != "1KiB-64KiB" {
		t.Errorf("range: %+v %v %q", r, err, r.String())
	}
	r, err = ParseSizeRange("1MiB")
	if err != nil || !r.Fixed() || r.String() != "1MiB" {
		t.Errorf("fixed: %+v %v", r, err)
	}
	if _, err := ParseSizeRange("64KiB-1KiB"); err == nil {
		t.Error("inverted range accepted")
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 1000: "1000B", 1024: "1KiB", 1 << 20: "1MiB", 1536: "1.5KiB", 10 << 30: "10GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix("get=70, put=30")
	if err != nil || m.String() != "get=70,put=30" {
		t.Errorf("ParseMix: %v %v", m, err)
	}
	for _, bad := range []string{"get", "get=x", "fly=1", "get=0", "get=1,get=2", "get=-1"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) accepted", bad)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	ok.AccessKey, ok.SecretKey = "a", "b"
	if err := ok.Validate(); err != nil {
		t.Fatalf("default config with keys: %v", err)
	}
	for name, tc := range map[string]struct {
		edit func(*Config)
		want string
	}{
		"scheme":      {func(c *Config) { c.Endpoint = "ftp://x" }, "scheme"},
		"keys":        {func(c *Config) { c.SecretKey = "" }, "secret key"},
		"workload":    {func(c *Config) { c.Workload = "fly" }, "unknown workload"},
		"concurrency": {func(c *Config) { c.Concurrency = 0 }, "concurrency"},
		"length":      {func(c *Config) { c.Duration, c.Ops = 0, 0 }, "duration"},
		"objects":     {func(c *Config) { c.Workload, c.Objects = "get", 0 }, "prepared object"},
		"ramp":        {func(c *Config) { c.Rate, c.RateTo, c.Ops = 10, 20, 5 }, "ramp"},
		"parts":       {func(c *Config) { c.Workload, c.Size, c.PartSize = "multipart", SizeRange{1 << 30, 1 << 30}, 1<<10 }, "10000 parts"},
		"prefix":      {func(c *Config) { c.Prefix = "a b/" }, "prefix"},
		"mix":         {func(c *Config) { c.Mix = Mix{{"get", 0}} }, "zero"},
		"versions":    {func(c *Config) { c.Workload, c.Versions = "get", 3 }, "list workloads"},
		"markers":     {func(c *Config) { c.Workload, c.DeleteMarkers = "list", -1 }, "negative"},
		"prepared":    {func(c *Config) { c.Workload, c.Prepared = "list-versions", true }, "--bucket"},
		"both":        {func(c *Config) { c.Workload, c.Bucket, c.Prepared, c.PrepareOnly = "list", "b", true, true }, "exclude"},
		"kept prefix": {func(c *Config) { c.Workload, c.Bucket, c.Prefix, c.PrepareOnly = "list", "b", "x", true }, "ending in /"},
	} {
		c := ok
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", name, err, tc.want)
		}
	}
	c := ok
	c.Workload, c.Objects, c.Duration, c.Ops = "put", 0, 0, 10*int64(time.Nanosecond)
	if err := c.Validate(); err != nil {
		t.Errorf("put needs no prepared objects: %v", err)
	}
}

func TestEndpointsList(t *testing.T) {
	c := DefaultConfig()
	c.AccessKey, c.SecretKey = "a", "b"
	c.Endpoint = "http://127.0.0.1:9000, http://127.0.0.1:9001,https://h:9443"
	us, err := c.Endpoints()
	if err != nil || len(us) != 3 || us[1].Host != "127.0.0.1:9001" || us[2].Scheme != "https" {
		t.Fatalf("Endpoints = %v, %v", us, err)
	}
	for _, bad := range []string{"http://a,", "http://a,ftp://b", "http://a,http://"} {
		c.Endpoint = bad
		if err := c.Validate(); err == nil {
			t.Errorf("Validate accepted endpoint %q", bad)
		}
	}
}

// TestClientSpreadsOverEndpoints: requests take turns over the endpoints.
func TestClientSpreadsOverEndpoints(t *testing.T) {
	c := DefaultConfig()
	c.AccessKey, c.SecretKey = "a", "b"
	c.Endpoint = "http://127.0.0.1:9000,http://127.0.0.1:9001"
	cl, err := NewClient(c, NewPayload(1), 4)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for range 10 {
		seen[cl.url("b", "k", "").Host]++
	}
	if seen["127.0.0.1:9000"] != 5 || seen["127.0.0.1:9001"] != 5 {
		t.Errorf("hosts %v, want 5 each", seen)
	}
}

func TestValidateSSE(t *testing.T) {
	for _, tc := range []struct {
		sse    string
		verify bool
		ok     bool
	}{{"", true, true}, {"AES256", true, true}, {"aws:kms", false, true}, {"aws:kms", true, false}, {"aes256", false, false}} {
		c := DefaultConfig()
		c.Endpoint, c.AccessKey, c.SecretKey = "http://127.0.0.1:1", "a", "b"
		c.SSE, c.Verify = tc.sse, tc.verify
		if err := c.Validate(); (err == nil) != tc.ok {
			t.Errorf("SSE %q verify %v: Validate() = %v, want ok %v", tc.sse, tc.verify, err, tc.ok)
		}
	}
	c := DefaultConfig()
	c.SSE = "AES256"
	if h := c.sseHeaders(); h["x-amz-server-side-encryption"] != "AES256" {
		t.Errorf("sseHeaders = %v", h)
	}
}
