// Package replication tests bucket replication's delivery
// (internal/bucketrepl/delivery, ADR 0031) under faults, with real `jog
// server` processes and fsync on: the source killed with SIGKILL while
// writers run, the destination killed and restarted on the same address,
// a gateway over PostgreSQL killed and its queue adopted; and the
// disaster-recovery drill of docs/OPERATIONS.md, run as written.
package replication

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

const (
	region               = "us-east-1"
	accessKey, secretKey = "replfaultaccess01", "replfaultsecret0000000000000001"
)

// targetEnv gives a source the keys of its target "dr" (the servers share
// theirs).
var targetEnv = []string{"JOG_REPLICATION_DR_ACCESS_KEY=" + accessKey, "JOG_REPLICATION_DR_SECRET_KEY=" + secretKey}

// proc is a `jog server` that keeps its address and data dir across
// kills and restarts.
type proc struct {
	t    *testing.T
	bin  string
	addr string
	dir  string
	args []string
	*testutil.Jog
}

// newProc reserves an address for a server of bin on data dir dir
// (args added); start starts it.
func newProc(t *testing.T, bin, dir string, args ...string) *proc {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return &proc{t: t, bin: bin, addr: addr, dir: dir, args: args}
}

func (p *proc) url() string { return "http://" + p.addr }

// start starts the server (again) on its address and data dir, fsync on,
// and waits until it is ready.
func (p *proc) start() *proc {
	p.t.Helper()
	p.Jog = testutil.StartJog(p.t, p.bin, append(os.Environ(), targetEnv...), append([]string{"--addr", p.addr,
		"--data-dir", p.dir, "--access-key", accessKey, "--secret-key", secretKey, "--region", region,
		"--fsync", "always", "--console-addr", "same"}, p.args...)...)
	return p
}

// client is an aws-sdk-go-v2 client of the server's address (it works
// across restarts).
func (p *proc) client() *s3.Client {
	return (&testutil.Jog{URL: p.url()}).Client(region, accessKey, secretKey)
}

// pair starts a destination server and a source replicating to it as
// target "dr" (srcArgs added to the source's flags), with bucket "orig"
// on the source replicating everything to "copy" on the destination.
func pair(t *testing.T, srcArgs ...string) (src, dst *proc) {
	t.Helper()
	tmp := t.TempDir()
	bin := jogBin(t)
	dst = newProc(t, bin, filepath.Join(tmp, "dst")).start()
	itest.VersionedBucket(t, dst.client(), "copy")
	src = newProc(t, bin, filepath.Join(tmp, "src"), append([]string{"--replication-target", "dr=" + dst.url()}, srcArgs...)...).start()
	itest.VersionedBucket(t, src.client(), "orig")
	itest.ReplicateAll(t, src.client(), "orig", "arn:jog:replication::dr:copy")
	return src, dst
}

// binDir holds the jog binary the package's tests share (TestMain makes
// it; jogBin builds jog there once).
var binDir string

var (
	buildOnce sync.Once
	built     string
)

// jogBin builds jog once for the package's tests and returns its path.
func jogBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { built = testutil.BuildJog(t, binDir) })
	if built == "" {
		t.Fatal("jog was not built (see the first test's failure)")
	}
	return built
}
