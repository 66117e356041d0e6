package bench

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// safeKeyChars are the characters allowed in --prefix: they need no
// escaping in a URL path, so the signed path is the sent path.
const safeKeyChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./"

// Workload names, as `jog bench <workload>` takes them.
var Workloads = []string{"put", "get", "stat", "delete", "list", "list-versions", "multipart", "mixed"}

// listWorkloads are the workloads that page through the prepared objects:
// they can prepare a versioned bucket (Versions, DeleteMarkers) and keep
// it for later runs (PrepareOnly, Prepared).
var listWorkloads = []string{"list", "list-versions"}

// Config is one benchmark run. DefaultConfig fills the defaults; Validate
// checks it before a run.
type Config struct {
	Endpoint    string `json:"endpoint"` // http(s)://host:port
	AccessKey   string `json:"-"`
	SecretKey   string `json:"-"`
	Region      string `json:"region"`
	PathStyle   bool   `json:"path_style"`   // false: virtual-hosted style (bucket.host)
	InsecureTLS bool   `json:"insecure_tls"` // skip certificate verification

	Bucket    string `json:"bucket"`     // "" → jog-bench-<random>, created and removed
	Prefix    string `json:"prefix"`     // key prefix for every object the run writes
	NoCleanup bool   `json:"no_cleanup"` // leave objects (and a created bucket) behind
	// SSE asks for server-side encryption of every object written
	// (x-amz-server-side-encryption: AES256 or aws:kms; "" for none).
	SSE string `json:"sse,omitempty"`
	// Reservation is a JOG throughput reservation's ID, sent as
	// x-jog-reservation-id on every GET, PUT and UploadPart ("" for none).
	Reservation string `json:"reservation,omitempty"`

	Workload    string        `json:"workload"`
	Size        SizeRange     `json:"size"`
	Concurrency int           `json:"concurrency"`
	Duration    time.Duration `json:"duration_ns,omitempty"` // run time, when Ops is 0
	Ops         int64         `json:"ops,omitempty"`         // operation count; wins over Duration
	Objects     int           `json:"objects"`               // prepared objects (get, stat, delete, list, mixed)
	Mix         Mix           `json:"mix,omitempty"`         // mixed: operation distribution

	// Keys is the key shape of the objects the run writes (KeyShapes), and
	// Signing how PUT and UploadPart bodies are signed (SigningModes): the
	// traffic shapes of other tools and clients.
	Keys    string `json:"keys"`
	Signing string `json:"signing"`

	// Rate, when set, schedules requests at a target rate (req/s) instead
	// of as fast as the workers go; RateTo > Rate ramps the target linearly
	// over Duration. QueueThreshold is how late a request may start before
	// the run counts it as queued.
	Rate           float64       `json:"rate,omitempty"`
	RateTo         float64       `json:"rate_to,omitempty"`
	QueueThreshold time.Duration `json:"queue_threshold_ns,omitempty"`

	Verify          bool  `json:"verify"`                  // check downloaded bytes and MD5 ETags
	PartSize        int64 `json:"part_size"`               // multipart: part size
	PartConcurrency int   `json:"part_concurrency"`        // multipart: parts in flight per upload; get: ranges in flight
	RangeSize       int64 `json:"range_size,omitempty"`    // get: download in ranges of this size (0: one GET)
	ListMaxKeys     int   `json:"list_max_keys"`           // list: page size
	ListPrefixes    int   `json:"list_prefixes,omitempty"` // prepared objects spread over this many prefixes; list with delimiter "/"

	// Versions and DeleteMarkers shape a versioned bucket for the list
	// workloads: each prepared object is written Versions times (Versions-1
	// noncurrent versions under the current one), and DeleteMarkers more
	// keys, placed among them, are written once and deleted, so their latest
	// version is a delete marker. Either turns versioning on for the bucket.
	Versions      int `json:"versions,omitempty"`
	DeleteMarkers int `json:"delete_markers,omitempty"`
	// PrepareOnly prepares the objects under Prefix itself (not under a
	// fresh run prefix) and stops: no measurement, nothing removed. Prepared
	// measures objects a PrepareOnly run left under Prefix, preparing and
	// removing nothing. One prepared bucket then serves many runs.
	PrepareOnly bool `json:"prepare_only,omitempty"`
	Prepared    bool `json:"prepared,omitempty"`

	Label string `json:"label,omitempty"` // the server's name in reports
	// ServerPIDs, when the server runs on this machine, are read for the
	// server's CPU use while measuring (Linux): one server, or several
	// gateways whose CPU is summed.
	ServerPIDs []int `json:"-"`
}

// DefaultConfig is a 30 s, 16-worker run of 1 MiB objects against a local
// JOG server.
func DefaultConfig() Config {
	return Config{
		Endpoint:        "http://127.0.0.1:9000",
		Region:          "us-east-1",
		PathStyle:       true,
		Prefix:          "bench/",
		Workload:        "mixed",
		Size:            SizeRange{1 << 20, 1 << 20},
		Concurrency:     16,
		Duration:        30 * time.Second,
		Objects:         1000,
		Mix:             Mix{{"get", 70}, {"put", 30}},
		Keys:            KeysSeq,
		Signing:         SigningUnsigned,
		QueueThreshold:  100 * time.Millisecond,
		PartSize:        5 << 20,
		PartConcurrency: 4,
		ListMaxKeys:     1000,
	}
}

// Endpoints parses c.Endpoint: one URL, or several separated by commas
// (gateways of one namespace that the requests are spread over).
func (c *Config) Endpoints() ([]*url.URL, error) {
	var us []*url.URL
	for _, e := range strings.Split(c.Endpoint, ",") {
		u, err := url.Parse(strings.TrimSpace(e))
		switch {
		case err != nil:
			return nil, fmt.Errorf("endpoint: %w", err)
		case u.Scheme != "http" && u.Scheme != "https":
			return nil, fmt.Errorf("endpoint %q: scheme must be http or https", e)
		case u.Host == "":
			return nil, fmt.Errorf("endpoint %q: no host", e)
		}
		us = append(us, u)
	}
	return us, nil
}

// Validate reports the first problem with c.
func (c *Config) Validate() error {
	_, err := c.Endpoints()
	switch {
	case err != nil:
		return err
	case c.AccessKey == "" || c.SecretKey == "":
		return errors.New("access key and secret key are required")
	case c.Region == "":
		return errors.New("region is required")
	case !slices.Contains(Workloads, c.Workload):
		return fmt.Errorf("unknown workload %q (want one of %s)", c.Workload, strings.Join(Workloads, ", "))
	case c.SSE != "" && c.SSE != "AES256" && c.SSE != "aws:kms":
		return fmt.Errorf("unknown --sse %q (want AES256 or aws:kms)", c.SSE)
	case c.SSE == "aws:kms" && c.Verify:
		return errors.New("--verify checks MD5 ETags, which SSE-KMS objects do not have: use --sse AES256")
	case c.Size.Min < 0 || c.Size.Max < c.Size.Min:
		return fmt.Errorf("invalid size %v", c.Size)
	case c.Concurrency < 1:
		return errors.New("concurrency must be at least 1")
	case c.Ops < 0 || c.Duration < 0:
		return errors.New("ops and duration must not be negative")
	case c.Ops == 0 && c.Duration == 0:
		return errors.New("set a duration or an operation count")
	case c.Objects < 1 && c.Workload != "put" && c.Workload != "multipart":
		return fmt.Errorf("workload %s needs at least one prepared object", c.Workload)
	case c.Rate < 0 || c.RateTo < 0:
		return errors.New("rate must not be negative")
	case c.RateTo > 0 && (c.Rate == 0 || c.Duration == 0 || c.Ops > 0):
		return errors.New("a rate ramp needs a start rate and a duration (not an operation count)")
	case c.Workload == "multipart" && (c.PartSize < 1 || c.PartConcurrency < 1):
		return errors.New("multipart needs a part size and part concurrency of at least 1")
	case c.Workload == "multipart" && (c.Size.Max+c.PartSize-1)/max(c.PartSize, 1) > 10000:
		return errors.New("multipart: more than 10000 parts; raise --part-size")
	case c.RangeSize < 0 || (c.RangeSize > 0 && (c.Workload != "get" || c.PartConcurrency < 1)):
		return errors.New("--range-size is for the get workload, with a part concurrency of at least 1")
	case c.ListPrefixes < 0:
		return errors.New("list prefixes must not be negative")
	case !slices.Contains(KeyShapes, c.Keys):
		return fmt.Errorf("unknown key shape %q (want one of %s)", c.Keys, strings.Join(KeyShapes, ", "))
	case !slices.Contains(SigningModes, c.Signing):
		return fmt.Errorf("unknown signing mode %q (want one of %s)", c.Signing, strings.Join(SigningModes, ", "))
	case c.ListPrefixes > 0 && c.Keys != KeysSeq:
		return errors.New("--list-prefixes lays out the prepared objects itself: use it with --keys seq")
	case c.Versions < 0 || c.DeleteMarkers < 0:
		return errors.New("versions and delete markers must not be negative")
	case (c.Versions > 1 || c.DeleteMarkers > 0 || c.PrepareOnly || c.Prepared) && !slices.Contains(listWorkloads, c.Workload):
		return errors.New("--versions, --delete-markers, --prepare-only and --prepared are for the list workloads (list, list-versions)")
	case c.PrepareOnly && c.Prepared:
		return errors.New("--prepare-only and --prepared exclude each other")
	case (c.PrepareOnly || c.Prepared) && c.Bucket == "":
		return errors.New("--prepare-only and --prepared need a --bucket that outlives the run")
	case (c.PrepareOnly || c.Prepared) && c.Prefix != "" && !strings.HasSuffix(c.Prefix, "/"):
		return errors.New("--prepare-only and --prepared need a --prefix ending in /")
	case c.ListMaxKeys < 1 || c.ListMaxKeys > 1000:
		return errors.New("list max keys must be in 1..1000")
	case strings.HasPrefix(c.Prefix, "/") || strings.Trim(c.Prefix, safeKeyChars) != "":
		return fmt.Errorf("prefix %q: use letters, digits and - _ . / only, not starting with /", c.Prefix)
	}
	if c.Workload == "mixed" {
		return c.Mix.validate()
	}
	return nil
}

// MixEntry is one operation of a mixed workload and its relative weight.
type MixEntry struct {
	Op     string `json:"op"`
	Weight int    `json:"weight"`
}

// Mix is the operation distribution of the mixed workload.
type Mix []MixEntry

// mixOps are the operations the mixed workload can issue.
var mixOps = []string{"get", "put", "stat", "delete", "list"}

// ParseMix parses "get=70,put=30". Weights are relative; they need not add
// up to 100.
func ParseMix(s string) (Mix, error) {
	var m Mix
	for part := range strings.SplitSeq(s, ",") {
		op, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("invalid mix entry %q (want op=weight)", part)
		}
		m = append(m, MixEntry{strings.ToLower(strings.TrimSpace(op)), n})
	}
	return m, m.validate()
}

func (m Mix) validate() error {
	total := 0
	seen := map[string]bool{}
	for _, e := range m {
		if !slices.Contains(mixOps, e.Op) {
			return fmt.Errorf("mix: unknown operation %q (want %s)", e.Op, strings.Join(mixOps, ", "))
		}
		if seen[e.Op] {
			return fmt.Errorf("mix: %s given twice", e.Op)
		}
		seen[e.Op] = true
		total += e.Weight
	}
	if total <= 0 {
		return errors.New("mix: weights add up to zero")
	}
	return nil
}

func (m Mix) String() string {
	parts := make([]string, len(m))
	for i, e := range m {
		parts[i] = e.Op + "=" + strconv.Itoa(e.Weight)
	}
	return strings.Join(parts, ",")
}

// sseHeaders are the headers that ask for c.SSE on a new object.
func (c Config) sseHeaders() map[string]string {
	if c.SSE == "" {
		return nil
	}
	return map[string]string{"x-amz-server-side-encryption": c.SSE}
}
