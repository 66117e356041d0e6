package bench

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
)

func smokeConfig(endpoint, ak, sk string) Config {
	cfg := DefaultConfig()
	cfg.Endpoint, cfg.AccessKey, cfg.SecretKey = endpoint, ak, sk
	cfg.Duration, cfg.Ops, cfg.Objects, cfg.Concurrency = 0, 12, 8, 3
	cfg.Size = SizeRange{1 << 10, 8 << 10}
	cfg.Verify = true
	cfg.Mix = Mix{{"get", 40}, {"put", 30}, {"stat", 10}, {"delete", 10}, {"list", 10}}
	return cfg
}

func checkResult(t *testing.T, r *Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Errors != 0 || len(r.Errors) != 0 {
		t.Fatalf("errors: %v %v", r.Errors, r.ErrorSamples)
	}
	if r.Total.Count == 0 {
		t.Fatal("no operations")
	}
}

// TestBenchSmoke runs every workload for a few operations against a real
// JOG server and expects no errors.
func TestBenchSmoke(t *testing.T) {
	s := testutil.StartServer(t, testutil.WithoutFsync())
	ctx := context.Background()
	cfg := smokeConfig(s.URL, s.Config.AccessKey, s.Config.SecretKey)
	b, err := Open(ctx, cfg, cfg.Concurrency, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, wl := range Workloads {
		t.Run(wl, func(t *testing.T) {
			c := cfg
			c.Workload = wl
			if wl == "multipart" {
				c.Ops, c.Size, c.PartSize, c.PartConcurrency = 2, SizeRange{5<<20 + 1000, 5<<20 + 1000}, 5<<20, 2
			}
			r, err := b.Run(ctx, c)
			var s3 *S3Error
			if wl == "multipart" && r != nil && r.Errors["NotImplemented"] > 0 || errors.As(err, &s3) && s3.Code == "NotImplemented" {
				t.Skip("this JOG has no multipart upload yet (the discard test covers the client side)")
			}
			checkResult(t, r, err)
			if o := r.Op("GET"); (wl == "get" || wl == "mixed") && (o == nil || o.TTFB == nil || o.TTFB.P50 <= 0) {
				t.Errorf("GET without time to first byte: %+v", o)
			}
			if wl == "delete" && r.Total.Count != 8 {
				t.Errorf("delete ran %d operations, want the 8 prepared objects", r.Total.Count)
			}
		})
	}
	t.Run("get ranges", func(t *testing.T) {
		c := cfg
		// 3 objects of 10,000–30,000 bytes in ranges of 4,096: uneven last
		// ranges, every byte verified.
		c.Workload, c.Ops, c.Objects, c.Size = "get", 6, 3, SizeRange{10000, 30000}
		c.RangeSize, c.PartConcurrency = 4096, 3
		r, err := b.Run(ctx, c)
		checkResult(t, r, err)
		get, part := r.Op("GET"), r.Op("PART")
		if get == nil || part == nil || get.Count != 6 || part.Count < 6*3 || part.Bytes != get.Bytes {
			t.Errorf("ranged GETs: GET %+v, PART %+v", get, part)
		}
	})
	t.Run("list prefixes", func(t *testing.T) {
		c := cfg
		c.Workload, c.Ops, c.Objects, c.Size, c.ListPrefixes, c.ListMaxKeys = "list", 3, 12, SizeRange{1, 1}, 5, 2
		c.Prefix, c.NoCleanup = "prefixes/", true
		r, err := b.Run(ctx, c)
		checkResult(t, r, err)
		// The run left its objects: bench/<run>/obj/<i mod 5>/<i>.
		runs, err := b.client.ListDelimited(ctx, b.Bucket(), c.Prefix, "/", "", 1000)
		if err != nil || len(runs.Prefixes) != 1 {
			t.Fatalf("runs under %s: %+v, %v", c.Prefix, runs, err)
		}
		page, err := b.client.ListDelimited(ctx, b.Bucket(), runs.Prefixes[0]+"obj/", "/", "", 1000)
		if err != nil || len(page.Prefixes) != 5 || len(page.Keys) != 0 {
			t.Errorf("objects of a run with 5 prefixes: %+v, %v", page, err)
		}
		if err := removeAll(ctx, &Env{Cfg: c, Client: b.client, Bucket: b.Bucket(), Prefix: c.Prefix, Status: func(string, ...any) {}}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("list versions", func(t *testing.T) { smokeListVersions(t, cfg) })
	t.Run("rate", func(t *testing.T) {
		c := cfg
		c.Workload, c.Ops, c.Rate = "mixed", 20, 400
		r, err := b.Run(ctx, c)
		checkResult(t, r, err)
		if r.Queue == nil || r.Queue.TargetRate != 400 {
			t.Errorf("rate mode without a queue report: %+v", r.Queue)
		}
	})
	t.Run("sweep", func(t *testing.T) {
		c := cfg
		c.Workload, c.Ops = "put", 4
		rs, err := b.Sweep(ctx, c, Grid{Concurrency: []int{1, 2}, Sizes: []SizeRange{{1, 1}, {2048, 2048}}}, nil)
		if err != nil || len(rs) != 4 {
			t.Fatalf("sweep: %d results, %v", len(rs), err)
		}
		if rs[3].Config.Concurrency != 2 || rs[3].Config.Size.Min != 2048 {
			t.Errorf("last cell %+v", rs[3].Config)
		}
	})
	bucket := b.Bucket()
	if err := b.Close(ctx); err != nil {
		t.Fatalf("remove bucket: %v", err)
	}
	c, _ := NewClient(cfg, NewPayload(1), 1)
	if _, err := c.ListObjects(ctx, bucket, "", "", 1); ErrorCode(err) != "NoSuchBucket" {
		t.Errorf("bucket %s left behind: %v", bucket, err)
	}
}

// smokeListVersions prepares a small versioned bucket once (3 keys of 3
// versions each, 2 keys under a delete marker), measures list-versions and
// list on it, and checks what the pages held; then a run that prepares
// its own versioned objects removes every version, so its bucket can go.
func smokeListVersions(t *testing.T, base Config) {
	ctx := context.Background()
	c := base
	c.Workload, c.Bucket, c.Prefix, c.Size = "list-versions", "kept-versions", "shape/", SizeRange{1, 1}
	c.Objects, c.Versions, c.DeleteMarkers, c.PrepareOnly = 3, 3, 2, true
	b, err := Open(ctx, c, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	if r, err := b.Run(ctx, c); r != nil || err != nil {
		t.Fatalf("prepare only: %v, %v", r, err)
	}
	var all []ObjectVersion
	for km, vm := "", ""; ; {
		page, err := b.client.ListObjectVersions(ctx, c.Bucket, "", km, vm, 4)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Versions...)
		if km, vm = page.NextKeyMarker, page.NextVersionIDMarker; km == "" {
			break
		}
	}
	markers, keys := 0, map[string]int{}
	for _, v := range all {
		keys[v.Key]++
		if v.DeleteMarker {
			markers++
		}
		if !strings.HasPrefix(v.Key, "shape/obj/") || v.VersionID == "" || v.VersionID == "null" {
			t.Errorf("unexpected entry %+v", v)
		}
	}
	// 3 keys × 3 versions, 2 keys × (a version and a delete marker).
	if len(all) != 13 || markers != 2 || len(keys) != 5 {
		t.Fatalf("prepared %d entries, %d delete markers, %d keys: %+v", len(all), markers, len(keys), all)
	}

	// 13 entries in pages of 5: 3 pages a pass, so 6 pages are two passes.
	c.PrepareOnly, c.Prepared, c.Concurrency, c.Ops, c.ListMaxKeys = false, true, 1, 6, 5
	r, err := b.Run(ctx, c)
	checkResult(t, r, err)
	if o := r.Op("LIST-VERSIONS"); o == nil || o.Count != 6 || o.Entries != 26 {
		t.Errorf("list-versions over 13 entries, 5 a page: %+v", o)
	}
	// ListObjectsV2 sees the 3 live keys only: pages of 2 and 1.
	c.Workload, c.Ops, c.ListMaxKeys = "list", 4, 2
	r, err = b.Run(ctx, c)
	checkResult(t, r, err)
	if o := r.Op("LIST"); o == nil || o.Count != 4 || o.Entries != 6 {
		t.Errorf("list over 3 live keys, 2 a page: %+v", o)
	}
	if page, err := b.client.ListObjects(ctx, c.Bucket, "", "", 1000); err != nil || len(page.Keys) != 3 {
		t.Errorf("the measuring runs changed the prepared keys: %+v, %v", page, err)
	}
	if err := cleanupListing(ctx, &Env{Cfg: c, Client: b.client, Bucket: c.Bucket, Prefix: c.Prefix, Status: func(string, ...any) {}}); err != nil {
		t.Fatal(err)
	}
	if err := b.client.DeleteBucket(ctx, c.Bucket); err != nil {
		t.Errorf("versions left after cleanup: %v", err)
	}

	// A run that prepares its own versions cleans all of them up.
	c = base
	c.Workload, c.Bucket, c.Size, c.Ops, c.Objects, c.Versions, c.DeleteMarkers = "list-versions", "", SizeRange{1, 1}, 2, 2, 2, 1
	b2, err := Open(ctx, c, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err = b2.Run(ctx, c)
	checkResult(t, r, err)
	if err := b2.Close(ctx); err != nil {
		t.Errorf("remove the bucket after a versioned run: %v", err)
	}
}

// TestBenchDiscard drives the client against the discarding endpoint:
// multipart with parallel parts, and --verify catching wrong bytes.
func TestBenchDiscard(t *testing.T) {
	srv := httptest.NewServer(NewDiscardHandler())
	defer srv.Close()
	ctx := context.Background()
	cfg := smokeConfig(srv.URL, "k", "s")
	cfg.Bucket = "discard"
	b, err := Open(ctx, cfg, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)

	c := cfg
	c.Workload, c.Ops, c.Size, c.PartSize, c.PartConcurrency = "multipart", 3, SizeRange{10 << 10, 10 << 10}, 3<<10, 3
	r, err := b.Run(ctx, c)
	checkResult(t, r, err)
	if p := r.Op("PART"); p == nil || p.Count != 12 || r.Total.Count != 3 || r.Total.Bytes != 30<<10 {
		t.Errorf("multipart: total %+v, parts %+v", r.Total, p)
	}

	c = cfg
	c.Workload, c.Ops, c.Duration = "get", 0, 100*time.Millisecond
	r, err = b.Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	// The discard endpoint serves zeros, so every verified GET fails.
	if r.Errors["VerifyFailed"] == 0 || r.Op("GET").Count != 0 {
		t.Errorf("verify did not catch wrong bytes: %v", r.Errors)
	}
}

func TestSelfTestRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	rs, err := SelfTest(context.Background(), 50*time.Millisecond, Options{})
	if err != nil || len(rs) != 4 {
		t.Fatalf("selftest: %d results, %v", len(rs), err)
	}
	for _, r := range rs {
		if r.Total.Count == 0 || r.Total.Errors != 0 {
			t.Errorf("%s %v: %d ops, %v", r.Label, r.Config.Size, r.Total.Count, r.Errors)
		}
	}
}

// TestBenchVirtualHostAndTLS covers virtual-hosted-style addressing (against
// JOG with a domain, no wildcard DNS) and an HTTPS endpoint with
// --insecure-tls.
func TestBenchVirtualHostAndTLS(t *testing.T) {
	s := testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithDomain("localhost"))
	ctx := context.Background()
	cfg := smokeConfig(strings.Replace(s.URL, "127.0.0.1", "localhost", 1), s.Config.AccessKey, s.Config.SecretKey)
	cfg.PathStyle, cfg.Workload = false, "mixed"
	b, err := Open(ctx, cfg, cfg.Concurrency, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Run(ctx, cfg)
	checkResult(t, r, err)
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewUnstartedServer(NewDiscardHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes cut short at Close
	srv.StartTLS()
	defer srv.Close()
	cfg = smokeConfig(srv.URL, "k", "s")
	cfg.Workload, cfg.Bucket, cfg.Verify, cfg.InsecureTLS = "put", "tls", false, true
	b, err = Open(ctx, cfg, cfg.Concurrency, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	r, err = b.Run(ctx, cfg)
	checkResult(t, r, err)
}
