package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
	"github.com/jogstore/jog/test/integration/itest"
)

const (
	migAccess = "migrateaccesskey0001"
	migSecret = "migratesecretkey00000000000000000001"
)

// TestMigrateBinary runs the real jog binary: a server on SQLite takes
// objects (inline, in blobs and packs, multipart, versions, delete
// markers, tags, metadata), stops; jog migrate copies the metadata to
// PostgreSQL; a server on PostgreSQL over the same data dir serves every
// version byte for byte and takes a new object; jog fsck is clean; and
// jog migrate copies it all back to SQLite, where the same holds.
func TestMigrateBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds jog and starts PostgreSQL")
	}
	pg := pgtest.Own(t)
	// The test cluster trusts local connections: the password is only
	// there to be kept out of every output.
	pgURL := strings.Replace(pg.NewDatabase(t), "postgres://jog@", "postgres://jog:hunter2secret@", 1)

	tmp := t.TempDir()
	bin := testutil.BuildJog(t, tmp)
	dataDir := filepath.Join(tmp, "data")

	srv := startJog(t, bin, dataDir, "sqlite")
	c := srv.client(t)
	want := writeMigrationObjects(t, c)
	before := listAllVersions(t, c, "mig")
	alice := createUser(t, bin, srv, tmp)

	// Refused while a server holds the data dir.
	out, code := runJog(t, bin, "migrate", "--data-dir", dataDir, "--from", "sqlite", "--to", pgURL)
	if code != 2 || !strings.Contains(out, "stop every jog server") {
		t.Fatalf("migrate beside a running server: exit %d\n%s", code, out)
	}
	srv.stop(t)

	out, code = runJog(t, bin, "migrate", "--data-dir", dataDir, "--from", "sqlite", "--to", pgURL)
	if code != 0 || !strings.Contains(out, "done: every table matches") {
		t.Fatalf("migrate to PostgreSQL: exit %d\n%s", code, out)
	}
	t.Logf("jog migrate sqlite -> postgres:\n%s", out)

	srv = startJog(t, bin, dataDir, pgURL)
	c = srv.client(t)
	checkMigrated(t, c, want, before)
	checkUser(t, srv, alice)
	extra := itest.RandBytes(77, 300<<10)
	itest.Put(t, c, "plain", "after/pg", extra)
	want[objVersion{"plain", "after/pg", ""}] = extra
	srv.stop(t)
	if out, code := runJog(t, bin, "fsck", "--data-dir", dataDir, "--meta", pgURL); code != 0 {
		t.Fatalf("fsck on PostgreSQL: exit %d\n%s", code, out)
	}

	// Back: the old jog.db is not empty, so it is refused until moved.
	out, code = runJog(t, bin, "migrate", "--data-dir", dataDir, "--from", pgURL, "--to", "sqlite")
	if code != 2 || !strings.Contains(out, "must be empty") {
		t.Fatalf("migrate into a non-empty jog.db: exit %d\n%s", code, out)
	}
	old := filepath.Join(tmp, "old")
	_ = os.Mkdir(old, 0o755)
	for _, f := range []string{"jog.db", "jog.db-wal", "jog.db-shm"} {
		_ = os.Rename(filepath.Join(dataDir, f), filepath.Join(old, f))
	}
	out, code = runJog(t, bin, "migrate", "--data-dir", dataDir, "--from", pgURL, "--to", "sqlite")
	if code != 0 {
		t.Fatalf("migrate to SQLite: exit %d\n%s", code, out)
	}
	t.Logf("jog migrate postgres -> sqlite:\n%s", out)
	srv = startJog(t, bin, dataDir, "sqlite")
	checkMigrated(t, srv.client(t), want, before)
	checkUser(t, srv, alice)
	srv.stop(t)
	if out, code := runJog(t, bin, "fsck", "--data-dir", dataDir); code != 0 {
		t.Fatalf("fsck on SQLite: exit %d\n%s", code, out)
	}
}

type objVersion struct{ bucket, key, version string }

// writeMigrationObjects writes objects of every kind and returns each
// version's bytes ("" version: the latest, in the unversioned bucket).
func writeMigrationObjects(t *testing.T, c *s3.Client) map[objVersion][]byte {
	ctx := context.Background()
	want := map[objVersion][]byte{}
	itest.CreateBucket(t, c, "plain")
	itest.CreateBucket(t, c, "mig")
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("mig"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{0, 100, 20 << 10, 600 << 10, 3 << 20} {
		key := fmt.Sprintf("dir/obj-%d", i)
		b := itest.RandBytes(uint64(i), n)
		itest.Put(t, c, "plain", key, b, func(in *s3.PutObjectInput) {
			in.Metadata = map[string]string{"colour": "blue"}
			in.ContentType = aws.String("application/x-test")
			in.Tagging = aws.String("a=1&b=2")
		})
		want[objVersion{"plain", key, ""}] = b
	}
	for i := range 3 {
		b := itest.RandBytes(uint64(100+i), 1000*(i+1))
		out := itest.Put(t, c, "mig", "k", b)
		want[objVersion{"mig", "k", aws.ToString(out.VersionId)}] = b
	}
	itest.Put(t, c, "mig", "gone", []byte("soon deleted"))
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("mig"), Key: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	big := itest.RandBytes(200, 11<<20)
	up := transfermanager.New(c, func(o *transfermanager.Options) { o.PartSizeBytes, o.MultipartUploadThreshold = 5<<20, 5<<20 })
	res, err := up.UploadObject(ctx, &transfermanager.UploadObjectInput{Bucket: aws.String("mig"), Key: aws.String("multi"), Body: bytes.NewReader(big)})
	if err != nil {
		t.Fatal(err)
	}
	want[objVersion{"mig", "multi", aws.ToString(res.VersionID)}] = big
	// An upload in progress, with a part, goes across too.
	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("mig"), Key: aws.String("open")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("mig"), Key: aws.String("open"), UploadId: mp.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(big[:5<<20])}); err != nil {
		t.Fatal(err)
	}
	return want
}

// listAllVersions renders every version and delete marker of bucket.
func listAllVersions(t *testing.T, c *s3.Client, bucket string) string {
	out, err := c.ListObjectVersions(context.Background(), &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, v := range out.Versions {
		fmt.Fprintf(&b, "%s %s %s %d %s %v\n", aws.ToString(v.Key), aws.ToString(v.VersionId), aws.ToString(v.ETag), aws.ToInt64(v.Size),
			aws.ToTime(v.LastModified).UTC().Format(time.RFC3339Nano), aws.ToBool(v.IsLatest))
	}
	for _, m := range out.DeleteMarkers {
		fmt.Fprintf(&b, "marker %s %s %v\n", aws.ToString(m.Key), aws.ToString(m.VersionId), aws.ToBool(m.IsLatest))
	}
	return b.String()
}

// checkMigrated reads every version back byte for byte, with its
// metadata and tags, and the version listing.
func checkMigrated(t *testing.T, c *s3.Client, want map[objVersion][]byte, versions string) {
	t.Helper()
	for v, b := range want {
		got, out := itest.Get(t, c, v.bucket, v.key, func(in *s3.GetObjectInput) {
			if v.version != "" {
				in.VersionId = aws.String(v.version)
			}
		})
		if !bytes.Equal(got, b) {
			t.Errorf("%v: %d bytes differ from the %d written", v, len(got), len(b))
		}
		if v.bucket == "plain" && strings.HasPrefix(v.key, "dir/") {
			if out.Metadata["colour"] != "blue" || aws.ToString(out.ContentType) != "application/x-test" {
				t.Errorf("%v: metadata %v, content type %q", v, out.Metadata, aws.ToString(out.ContentType))
			}
			tags, err := c.GetObjectTagging(context.Background(), &s3.GetObjectTaggingInput{Bucket: aws.String(v.bucket), Key: aws.String(v.key)})
			if err != nil {
				t.Errorf("%v: GetObjectTagging: %v", v, err)
			} else if len(tags.TagSet) != 2 {
				t.Errorf("%v: %d tags, want 2", v, len(tags.TagSet))
			}
		}
	}
	if got := listAllVersions(t, c, "mig"); got != versions {
		t.Errorf("versions after the migration:\n%s\nwant:\n%s", got, versions)
	}
	itest.WantNoObject(t, c, "mig", "gone")
	ups, err := c.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String("mig")})
	if err != nil || len(ups.Uploads) != 1 {
		t.Fatalf("uploads in progress after the migration: %v, %v", ups, err)
	}
	parts, err := c.ListParts(context.Background(), &s3.ListPartsInput{Bucket: aws.String("mig"), Key: aws.String("open"), UploadId: ups.Uploads[0].UploadId})
	if err != nil || len(parts.Parts) != 1 || aws.ToInt64(parts.Parts[0].Size) != 5<<20 {
		t.Errorf("parts of the upload in progress after the migration: %v, %v", parts, err)
	}
}

// createUser makes an IAM user with an access key and a policy that
// allows it S3, through jog admin, and returns its key ID and secret.
func createUser(t *testing.T, bin string, srv *jogProcess, tmp string) [2]string {
	t.Helper()
	admin := func(args ...string) string {
		out, code := runJog(t, bin, append([]string{"admin", "--endpoint", srv.url, "--access-key", migAccess, "--secret-key", migSecret}, args...)...)
		if code != 0 {
			t.Fatalf("jog admin %v: exit %d\n%s", args, code, out)
		}
		return out
	}
	pol := filepath.Join(tmp, "policy.json")
	if err := os.WriteFile(pol, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	admin("user", "create", "alice")
	admin("policy", "create", "all", pol)
	admin("policy", "attach", "alice", "all")
	out := admin("key", "create", "alice", "--json")
	var key struct{ AccessKeyId, SecretAccessKey string }
	if err := json.Unmarshal([]byte(out), &key); err != nil || key.AccessKeyId == "" || key.SecretAccessKey == "" {
		t.Fatalf("key create --json printed %q: %v", out, err)
	}
	return [2]string{key.AccessKeyId, key.SecretAccessKey}
}

// checkUser reads an object with the user's key: the sealed secret and
// the user's policy came across.
func checkUser(t *testing.T, srv *jogProcess, key [2]string) {
	t.Helper()
	c := (&testutil.Server{URL: srv.url, Config: config.Config{Region: "us-east-1", AccessKey: key[0], SecretKey: key[1]}}).AWSClient(t)
	itest.Get(t, c, "plain", "dir/obj-1")
}

// jogProcess is a jog server started from the binary.
type jogProcess struct {
	cmd  *exec.Cmd
	url  string
	done chan error
	log  *bytes.Buffer
}

// startJog starts `jog server` from bin over dataDir and metaStore, with
// any further flags in args, and waits until it is ready.
func startJog(t *testing.T, bin, dataDir, metaStore string, args ...string) *jogProcess {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	p := &jogProcess{url: "http://" + addr, done: make(chan error, 1), log: &bytes.Buffer{}}
	p.cmd = exec.Command(bin, append([]string{"server", "--addr", addr, "--data-dir", dataDir, "--meta", metaStore,
		"--access-key", migAccess, "--secret-key", migSecret, "--region", "us-east-1", "--log-level", "warn",
		"--console=false"}, args...)...) // no console: its port would be the next, not reserved
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	testutil.WaitReady(t, p.url)
	return p
}

func (p *jogProcess) client(t *testing.T) *s3.Client {
	srv := &testutil.Server{URL: p.url, Config: config.Config{Region: "us-east-1", AccessKey: migAccess, SecretKey: migSecret}}
	return srv.AWSClient(t)
}

func (p *jogProcess) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("jog server did not stop; its log:\n%s", p.log)
	}
	if strings.Contains(p.log.String(), "hunter2secret") {
		t.Errorf("the server logged the PostgreSQL password:\n%s", p.log)
	}
}

// runJog runs the binary and returns its combined output and exit code;
// the output must never show the PostgreSQL password.
func runJog(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "hunter2secret") {
		t.Errorf("jog %s printed the PostgreSQL password:\n%s", args[0], out)
	}
	return string(out), code
}
