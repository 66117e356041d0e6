package replicate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/testutil"
)

// TestReplicateCABundle: AWS_CA_BUNDLE matters only to an https://
// replica endpoint (issue 42, item 22). Naming a file that does not exist,
// it stops a start replicating over https with an error naming the
// variable, and that failed start, which had generated the root's
// credentials, leaves none stored (its secret was never shown); over
// http:// the same variable is ignored: the server starts, replicates,
// prints the credentials it generates, and its shutdown logs no
// "database is closed".
func TestReplicateCABundle(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds jog and runs two servers")
	}
	ctx := context.Background()
	tmp := t.TempDir()
	bin := testutil.BuildJog(t, tmp)
	b := startServer(t, bin, filepath.Join(tmp, "b"), keyB, secretB, nil)
	if _, err := b.client(keyB, secretB).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("replicas")}); err != nil {
		t.Fatal(err)
	}
	badBundle := "AWS_CA_BUNDLE=" + filepath.Join(tmp, "no-such-bundle.pem")
	env := []string{badBundle, "JOG_REPLICATE_TO=s3://replicas/ca", "JOG_REPLICATE_REGION=" + region,
		"JOG_REPLICATE_ACCESS_KEY=" + keyB, "JOG_REPLICATE_SECRET_KEY=" + secretB}
	dir := filepath.Join(tmp, "a")
	creds := filepath.Join(dir, datadir.CredentialsFile)

	https := append(env[:len(env):len(env)], "JOG_REPLICATE_ENDPOINT="+strings.Replace(b.URL, "http://", "https://", 1))
	code, out := run(t, bin, https, "server", "--addr", "127.0.0.1:0", "--data-dir", dir)
	if code == 0 || !strings.Contains(out, "AWS_CA_BUNDLE") || !strings.Contains(out, "no-such-bundle.pem") {
		t.Fatalf("jog server, https replica, AWS_CA_BUNDLE naming no file: exit %d, want a failed start naming the variable and file\n%s", code, out)
	}
	if _, err := os.Stat(creds); !os.IsNotExist(err) {
		t.Errorf("the failed start left %s (stat: %v): a stored secret never shown\n%s", creds, err, out)
	}
	if strings.Contains(out, "database is closed") {
		t.Errorf("the failed start logged \"database is closed\"\n%s", out)
	}

	a := testutil.StartJog(t, bin, environ(append(env, "JOG_REPLICATE_ENDPOINT="+b.URL)),
		"--data-dir", dir, "--region", region, "--log-level", "info")
	stored, err := os.ReadFile(creds)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		AccessKey string `json:"access_key"`
		SecretKey string `json:"secret_key"`
	}
	if err := json.Unmarshal(stored, &c); err != nil {
		t.Fatal(err)
	}
	if banner := strings.Join(a.Banner, "\n"); !strings.Contains(banner, "SecretKey: "+c.SecretKey) {
		t.Errorf("the banner does not print the generated secret kept in %s:\n%s", creds, banner)
	}
	if _, err := a.Client(region, c.AccessKey, c.SecretKey).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("data")}); err != nil {
		t.Fatal(err)
	}
	a.Stop()
	log := a.Log.String()
	if !strings.Contains(log, "replicating metadata") {
		t.Errorf("the server over an http:// replica did not replicate:\n%s", log)
	}
	if strings.Contains(log, "database is closed") {
		t.Errorf("the shutdown logged \"database is closed\":\n%s", log)
	}
}
