package server_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// TestMetricsPostgres: a server on PostgreSQL exposes its pool's
// statistics and its buckets' usage, and no SQLite metrics.
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
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("k"),
		Body: strings.NewReader("hello")}); err != nil {
		t.Fatal(err)
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
	if f == nil || len(f.Metric) != 1 || f.Metric[0].GetGauge().GetValue() != 5 {
		t.Errorf("jog_bucket_used_bytes: %v, want bkt at 5", f)
	}
}
