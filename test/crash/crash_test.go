package crash

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}

// TestCrashConsistency is the reduced run (8 kill -9 cycles); run-long.sh
// runs it with more cycles. The workload writes a plain bucket, a
// versioned one and one with object lock (JOG_CRASH_KEYS keys, half and a
// quarter as many). Environment:
//
//	JOG_CRASH_CYCLES   kill/restart cycles (8)
//	JOG_CRASH_WORKERS  concurrent clients (8)
//	JOG_CRASH_KEYS     key space (48)
//	JOG_CRASH_MIN_RUN, JOG_CRASH_MAX_RUN  workload time per cycle (500ms, 4s)
//	JOG_CRASH_SEED     content and schedule seed (time-based)
//	JOG_CRASH_FSCK_EVERY  fsck right after every n-th kill (2)
//	JOG_CRASH_KEEP     keep the data dir (path printed)
func TestCrashConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("crash harness: kill -9 cycles of a real server")
	}
	crashConsistency(t, "", 8, 1)
}

// TestCrashConsistencyPostgres is the reduced run against the PostgreSQL
// metadata store (issue 24): the same workload and checks, the metadata in
// a throwaway PostgreSQL cluster, the blobs in the data dir; 4 cycles
// unless JOG_CRASH_CYCLES says otherwise.
func TestCrashConsistencyPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("crash harness: kill -9 cycles of a real server")
	}
	crashConsistency(t, pgtest.Shared(t).NewDatabase(t), 4, 1)
}

// TestCrashConsistencyGateways is the reduced run of two gateways over
// one PostgreSQL database and one data dir (docs/SCALING.md): the
// workload's requests go to either, each cycle kills one of them at
// random (or, in a quarter of the cycles, both); 4 cycles unless
// JOG_CRASH_CYCLES says otherwise, JOG_CRASH_GATEWAYS gateways (2).
// run-long.sh --gateways 2 runs it at length.
func TestCrashConsistencyGateways(t *testing.T) {
	if testing.Short() {
		t.Skip("crash harness: kill -9 cycles of real gateways")
	}
	crashConsistency(t, pgtest.Shared(t).NewDatabase(t), 4, testutil.EnvInt(t, "JOG_CRASH_GATEWAYS", 2))
}

// crashConsistency runs the harness with meta as --meta ("" for the
// embedded SQLite store), gateways servers and cycles kill/restart cycles
// by default.
func crashConsistency(t *testing.T, meta string, cycles, gateways int) {
	tmp := t.TempDir()
	if os.Getenv("JOG_CRASH_KEEP") != "" {
		var err error
		if tmp, err = os.MkdirTemp("", "jog-crash-"); err != nil {
			t.Fatal(err)
		}
		t.Logf("data dir kept in %s", tmp)
	}
	bin := filepath.Join(tmp, "jog")
	build := exec.Command("go", "build", "-o", bin, "github.com/jogstore/jog/cmd/jog")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	seed := uint64(testutil.EnvInt(t, "JOG_CRASH_SEED", int(time.Now().UnixNano()&0x7fffffff)))
	cfg := Config{
		Bin:       bin,
		DataDir:   filepath.Join(tmp, "data"),
		Cycles:    testutil.EnvInt(t, "JOG_CRASH_CYCLES", cycles),
		Workers:   testutil.EnvInt(t, "JOG_CRASH_WORKERS", 8),
		Keys:      testutil.EnvInt(t, "JOG_CRASH_KEYS", 48),
		MinRun:    envDuration(t, "JOG_CRASH_MIN_RUN", 500*time.Millisecond),
		MaxRun:    envDuration(t, "JOG_CRASH_MAX_RUN", 4*time.Second),
		Seed:      seed,
		FsckEvery: testutil.EnvInt(t, "JOG_CRASH_FSCK_EVERY", 2),
		Meta:      meta,
		Gateways:  gateways,
		Log:       testLog{t},
	}
	start := time.Now()
	res, err := Run(t.Context(), cfg)
	if res != nil {
		t.Logf("RESULT (%v, seed %d): %s", time.Since(start).Round(time.Second), seed, res)
		for _, v := range res.Violations {
			t.Errorf("violation: %s", v)
		}
	}
	if err != nil {
		logs, _ := filepath.Glob(filepath.Join(tmp, "server*.log"))
		for _, name := range logs {
			if log, rerr := os.ReadFile(name); rerr == nil && len(log) > 0 {
				t.Logf("%s (end):\n%s", filepath.Base(name), log[max(len(log)-4000, 0):])
			}
		}
		t.Fatal(err)
	}
	if !res.OK() {
		t.Errorf("inconsistent: lost %d, corrupt %d, damage after kills %d, final fsck exit %d (%s)",
			res.Lost, res.Corrupt, res.CrashDamage, res.FinalFsckExit, res.FinalFsck)
	}
	if res.Acked == 0 || res.Verified == 0 {
		t.Errorf("the workload acknowledged %d writes and verified %d: nothing was tested", res.Acked, res.Verified)
	}
	if res.VAckedVersions == 0 || res.VAckedMarkers == 0 || res.VersionsVerified == 0 || res.MarkersVerified == 0 || res.LockedVerified == 0 {
		t.Errorf("versioned and locked buckets: %d versions and %d delete markers acknowledged, %d and %d verified, %d locked versions verified: nothing was tested",
			res.VAckedVersions, res.VAckedMarkers, res.VersionsVerified, res.MarkersVerified, res.LockedVerified)
	}
}

// testLog sends the harness's progress lines to t.Log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}
