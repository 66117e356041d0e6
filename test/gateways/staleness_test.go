package gateways

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// iamPollInterval is how often a gateway reads the IAM change counter
// (internal/server: iam.Options.PollInterval).
const iamPollInterval = time.Second

// slack is what the staleness bounds allow on top of a cache's stated
// lifetime: the polling here, a busy machine.
const slack = 3 * time.Second

// startGateways builds jog and starts n gateways over one new database and
// one data directory.
func startGateways(t *testing.T, n int) []*gateway {
	t.Helper()
	gws, _ := startGatewaysOn(t, n)
	return gws
}

// startGatewaysOn is startGateways, returning the database's URL too.
func startGatewaysOn(t *testing.T, n int) ([]*gateway, string) {
	t.Helper()
	cluster := pgtest.Shared(t)
	tmp := t.TempDir()
	bin := testutil.BuildJog(t, tmp)
	meta := cluster.NewDatabase(t)
	gws := make([]*gateway, n)
	for i := range gws {
		g, err := newGateway(i, bin, filepath.Join(tmp, "data"), meta, tmp)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.stop)
		gws[i] = g
	}
	return gws, meta
}

// eventually polls cond every 50 ms until it holds and returns how long
// that took; it fails the test if it does not hold within bound.
func eventually(t *testing.T, what string, bound time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > bound {
			t.Fatalf("%s: not seen after %v (bound %v)", what, time.Since(start).Round(time.Millisecond), bound)
		}
		time.Sleep(50 * time.Millisecond)
	}
	d := time.Since(start)
	t.Logf("%s: seen after %v", what, d.Round(time.Millisecond))
	return d
}

// anonymousGet is the status of an unsigned GET of url.
func anonymousGet(t *testing.T, url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// notifiedBound is how soon a gateway obeys a change made through another
// that the database announced (meta.Changes: LISTEN/NOTIFY): a
// correctness bound, far above a notification's milliseconds on a busy
// machine and below service.ConfigCacheTTL, so that it fails when the
// announcement does not arrive.
const notifiedBound = 2 * time.Second

// TestStaleness: a change made through one gateway is obeyed by another —
// a bucket policy granting and then no longer granting anonymous reads, an
// access key deleted — within notifiedBound while the database announces
// changes, and, with the announcements silenced, within the time bounds of
// the caches (service.ConfigCacheTTL, the IAM change counter read every
// second). The measured staleness is logged.
func TestStaleness(t *testing.T) {
	if testing.Short() {
		t.Skip("gateways over PostgreSQL")
	}
	t.Run("notified", func(t *testing.T) {
		gws, db := startGatewaysOn(t, 2)
		// Each gateway listens (application_name jog-listener) and, its
		// listener's backend terminated, listens again.
		var first []int32
		eventually(t, "both gateways listening", 30*time.Second, func() bool { first = listeners(t, db); return len(first) == 2 })
		if err := queryRow(t, db, "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", nil, first); err != nil {
			t.Fatal(err)
		}
		eventually(t, "both gateways listening again", 30*time.Second, func() bool {
			again := listeners(t, db)
			return len(again) == 2 && !slices.Contains(first, again[0]) && !slices.Contains(first, again[1])
		})
		staleness(t, gws, notifiedBound, notifiedBound)
	})
	t.Run("silenced", func(t *testing.T) {
		gws, db := startGatewaysOn(t, 2)
		silence(t, db)
		staleness(t, gws, service.ConfigCacheTTL+slack, iamPollInterval+slack)
	})
}

// listeners returns the backend PIDs of the connections to db listening
// for changes.
func listeners(t *testing.T, db string) []int32 {
	t.Helper()
	var pids []int32
	if err := queryRow(t, db, "SELECT coalesce(array_agg(pid), '{}') FROM pg_stat_activity WHERE application_name = 'jog-listener' AND datname = current_database()", []any{&pids}); err != nil {
		t.Fatal(err)
	}
	return pids
}

// silence disables db's triggers that announce changes (the end of
// migration 0001): the gateways keep listening, and hear nothing.
func silence(t *testing.T, db string) {
	t.Helper()
	for _, tr := range []struct{ table, trigger string }{
		{"buckets", "buckets_notify"}, {"bucket_configs", "bucket_configs_notify"},
		{"iam_state", "iam_notify"}, {"reservations", "reservations_notify"},
	} {
		if err := queryRow(t, db, fmt.Sprintf("ALTER TABLE %s DISABLE TRIGGER %s", tr.table, tr.trigger), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// queryRow runs one statement on db with args, scanning its row into
// dest unless dest is nil.
func queryRow(t *testing.T, db, sql string, dest []any, args ...any) error {
	conn, err := pgx.Connect(t.Context(), db)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if dest == nil {
		_, err = conn.Exec(t.Context(), sql, args...)
		return err
	}
	return conn.QueryRow(t.Context(), sql, args...).Scan(dest...)
}

// staleness makes changes through gateway 0 and waits for gateway 1 to
// obey them: a bucket policy within policyBound, IAM within iamBound.
func staleness(t *testing.T, gws []*gateway, policyBound, iamBound time.Duration) {
	ctx := t.Context()
	a := newClient(gws[0].url())
	if _, err := a.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), Body: strings.NewReader("v")}); err != nil {
		t.Fatal(err)
	}
	objURL := gws[1].url() + "/" + bucket + "/k"
	// This also fills gateway 1's cache of the bucket's access.
	if code := anonymousGet(t, objURL); code != http.StatusForbidden {
		t.Fatalf("anonymous GET before any policy: %d, want 403", code)
	}

	// A bucket policy through gateway 0, obeyed by gateway 1.
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/*"}]}`, bucket)
	if _, err := a.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a bucket policy granting anonymous reads", policyBound, func() bool { return anonymousGet(t, objURL) == http.StatusOK })
	if _, err := a.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the bucket policy deleted", policyBound, func() bool { return anonymousGet(t, objURL) == http.StatusForbidden })

	// An access key deleted through gateway 0 stops working on gateway 1.
	root := iam.New(iam.Options{Region: region, Credentials: credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		BaseEndpoint: aws.String(gws[0].url())})
	if _, err := root.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	doc := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/*"}]}`, bucket)
	if _, err := root.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("read"), PolicyDocument: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	k, err := root.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})
	if err != nil {
		t.Fatal(err)
	}
	alice := s3.New(s3.Options{Region: region, BaseEndpoint: aws.String(gws[1].url()), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey), "")})
	get := func() error {
		_, err := alice.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
		return err
	}
	eventually(t, "a new user's key", iamBound, func() bool { return get() == nil })
	if _, err := root.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: k.AccessKey.AccessKeyId}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the key deleted", iamBound, func() bool { return get() != nil })
}
