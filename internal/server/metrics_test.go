package server_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// TestMetricsPostgres: a server on PostgreSQL exposes its pool's
// statistics and the usage of its buckets with a quota (the others' would
// be a sum over their versions at every scrape), and no SQLite metrics.
func TestMetricsPostgres(t *testing.T) {
	c, err := pgtest.Start()
	if errors.Is(err, pgtest.ErrNoPostgres) && os.Getenv("JOG_REQUIRE_POSTGRES") == "" && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	url := c.NewDatabase(t)
	srv := testutil.StartServer(t, testutil.WithoutFsync(), func(cfg *config.Config) {
		cfg.Meta, cfg.MetricsPublic, cfg.LifecycleInterval = url, true, 0
	})
	s3c := srv.AWSClient(t)
	ctx := t.Context()
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("plain")}); err != nil {
		t.Fatal(err)
	}
	withQuota := func(o *s3.Options) { // CreateBucket with JOG's x-jog-bucket-quota
		o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue("x-jog-bucket-quota", "1MiB"))
	}
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("quota")}, withQuota); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"plain", "quota"} {
		if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("k"),
			Body: strings.NewReader("hello")}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := srv.HTTPClient().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if f := fams["jog_meta_pg_acquires_total"]; f == nil || f.Metric[0].GetCounter().GetValue() == 0 {
		t.Errorf("jog_meta_pg_acquires_total: %v, want > 0", f)
	}
	if fams["jog_meta_pg_connections"] == nil || fams["jog_meta_pg_max_connections"] == nil {
		t.Error("no pool connection gauges")
	}
	if fams["jog_meta_commit_batch_size"] != nil || fams["jog_meta_sqlite_wal_bytes"] != nil {
		t.Error("SQLite metrics on a PostgreSQL server")
	}
	f := fams["jog_bucket_used_bytes"]
	if f == nil || len(f.Metric) != 1 || f.Metric[0].GetLabel()[0].GetValue() != "quota" || f.Metric[0].GetGauge().GetValue() != 5 {
		t.Errorf("jog_bucket_used_bytes: %v, want only bucket quota, at 5", f)
	}
	if f := fams["jog_bucket_quota_bytes"]; f == nil || f.Metric[0].GetGauge().GetValue() != 1<<20 {
		t.Errorf("jog_bucket_quota_bytes: %v, want 1 MiB", f)
	}
}
