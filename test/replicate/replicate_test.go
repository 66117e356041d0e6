package replicate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
)

// TestReplicateAndRestore replicates server A's metadata to server B (a
// second JOG) while objects are written to A, small ones inline in the
// database, others in pack files and blob files; waits until the replica
// holds every object; stops A, destroys its jog.db (and -wal, -shm),
// restores it with jog restore and starts A again: every object reads back
// with its bytes, a new write reaches the replica, a restore to a point in
// time before that write leaves it out, and jog fsck is clean.
func TestReplicateAndRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds jog and runs three servers")
	}
	ctx := context.Background()
	tmp := t.TempDir()
	bin := testutil.BuildJog(t, tmp)
	dirA, dirB := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")

	b := startServer(t, bin, dirB, keyB, secretB, nil)
	if _, err := b.client(keyB, secretB).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("replicas")}); err != nil {
		t.Fatal(err)
	}
	replica := "s3://replicas/jog-a"
	// A's replication settings, and jog restore's: the same variables.
	env := []string{"JOG_REPLICATE_TO=" + replica, "JOG_REPLICATE_ENDPOINT=" + b.URL, "JOG_REPLICATE_REGION=" + region,
		"JOG_REPLICATE_ACCESS_KEY=" + keyB, "JOG_REPLICATE_SECRET_KEY=" + secretB}

	// A replica the server cannot write to stops it at start-up.
	bad := append(env[:len(env):len(env)], "JOG_REPLICATE_TO=s3://no-such-bucket/jog-a")
	if code, out := run(t, bin, bad, "server", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(tmp, "bad"),
		"--access-key", keyA, "--secret-key", secretA); code == 0 || !strings.Contains(out, "no-such-bucket") {
		t.Fatalf("jog server replicating to a missing bucket: exit %d, want a failed start naming it\n%s", code, out)
	}

	a := startServer(t, bin, dirA, keyA, secretA, env)
	ca := a.client(keyA, secretA)
	if _, err := ca.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("data")}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	objects := map[string][]byte{}
	for i, size := range []int{0, 100, 4 << 10, 16 << 10, 100 << 10, 900 << 10, 2 << 20, 5<<20 + 3} {
		for j := range 2 {
			key := fmt.Sprintf("obj/%d-%d-%d", i, j, size)
			body := make([]byte, size)
			for k := range body {
				body[k] = byte(rng.UintN(256))
			}
			if _, err := ca.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
				t.Fatal(err)
			}
			objects[key] = body
		}
	}
	// One overwritten and one deleted: the replica must hold the last state.
	objects["obj/0-0-0"] = []byte("second version")
	if _, err := ca.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("obj/0-0-0"), Body: strings.NewReader("second version")}); err != nil {
		t.Fatal(err)
	}
	delete(objects, "obj/1-1-100")
	if _, err := ca.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("data"), Key: aws.String("obj/1-1-100")}); err != nil {
		t.Fatal(err)
	}
	waitReplica(t, bin, env, filepath.Join(tmp, "probe"), len(objects))
	replicated := time.Now() // a point in time holding exactly these objects

	// A server holds A's data dir: jog restore refuses.
	if code, out := run(t, bin, env, "restore", "--data-dir", dirA, "--force"); code == 0 || !strings.Contains(out, "in use") {
		t.Fatalf("jog restore beside a running server: exit %d, want a refusal\n%s", code, out)
	}
	a.Stop()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dirA, "jog.db"+suffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	// Its progress is logged as jog server logs (log/slog's text
	// handler), not in the log package's format Litestream's default is.
	out := mustRun(t, bin, env, "restore", "--data-dir", dirA)
	if !strings.Contains(out, `level=INFO msg="post-restore integrity check passed"`) || goLogLine.MatchString(out) {
		t.Errorf("jog restore's log is not JOG's:\n%s", out)
	}
	// A jog.db is there now: without --force, refused.
	if code, out := run(t, bin, env, "restore", "--data-dir", dirA); code != 1 || !strings.Contains(out, "already there") {
		t.Fatalf("jog restore over a jog.db: exit %d, want 1 and a refusal\n%s", code, out)
	}

	a = startServer(t, bin, dirA, keyA, secretA, env)
	ca = a.client(keyA, secretA)
	for key, want := range objects {
		out, err := ca.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String(key)})
		if err != nil {
			t.Errorf("GET %s after restore: %v", key, err)
			continue
		}
		got, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("GET %s after restore: %d bytes (%v), want %d bytes as written", key, len(got), err, len(want))
		}
	}
	if _, err := ca.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("data"), Key: aws.String("obj/1-1-100")}); err == nil {
		t.Errorf("obj/1-1-100 was deleted before the replica caught up, and is back after restore")
	}
	// The restored server goes on replicating from the replica's position.
	// (Writes from the next second on, so that even an endpoint's
	// LastModified in whole seconds puts them after replicated.)
	for !time.Now().Truncate(time.Second).After(replicated) {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := ca.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("after-restore"), Body: strings.NewReader("new")}); err != nil {
		t.Fatal(err)
	}
	waitReplica(t, bin, env, filepath.Join(tmp, "probe"), len(objects)+1)
	// A point-in-time restore (what docs/OPERATIONS.md pairs with a
	// blob copy) leaves the later object out.
	past := filepath.Join(tmp, "past")
	mustRun(t, bin, env, "restore", "--data-dir", past, "--timestamp", replicated.UTC().Format(time.RFC3339Nano))
	if n := objectsIn(t, bin, past); n != len(objects) {
		t.Errorf("restore --timestamp before the last write: %d objects, want %d", n, len(objects))
	}
	a.Stop()
	if code, out := run(t, bin, nil, "fsck", "--data-dir", dirA); code != 0 {
		t.Errorf("jog fsck after restore: exit %d, want 0 (clean)\n%s", code, out)
	}
}

// goLogLine is a line in the log package's format: "2026/11/28 21:00:00 ".
var goLogLine = regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)

// waitReplica restores the replica into a scratch data dir until its
// metadata holds want objects (jog fsck --json counts them; their blobs are
// not there, so it reports them missing, which is not the question here).
func waitReplica(t *testing.T, bin string, env []string, scratch string, want int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	last := -1
	for time.Now().Before(deadline) {
		if code, _ := run(t, bin, env, "restore", "--data-dir", scratch, "--force"); code == 0 {
			if last = objectsIn(t, bin, scratch); last == want {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the replica did not hold the %d objects within 2 minutes (last restore held %d)", want, last)
}

// objectsIn counts the object versions in dir's metadata (jog fsck --json).
func objectsIn(t *testing.T, bin, dir string) int {
	t.Helper()
	_, out := run(t, bin, nil, "fsck", "--data-dir", dir, "--json")
	var doc struct {
		Summary struct {
			Objects int `json:"objects"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("jog fsck --json: %v\n%s", err, out)
	}
	return doc.Summary.Objects
}
