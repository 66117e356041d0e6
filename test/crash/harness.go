// Package crash is JOG's crash-consistency harness. It starts a real
// `jog server` process (fsync always) — or several gateways over one
// PostgreSQL database and one data dir —, drives concurrent PUTs,
// overwrites, DELETEs, multipart uploads and copies on random keys, kill
// -9s the process (one gateway or all) at random moments, restarts it on
// the same data dir and checks what came back against a model of every
// acknowledged and in-flight write:
//
//   - the latest acknowledged state of every key reads back byte-exact with
//     its ETag, unless a later write to the key was in flight at the kill,
//     in which case either state may be there, whole;
//   - a write never acknowledged is absent or whole, never partial;
//   - no GET returns bytes that disagree with the ETag it reports;
//   - a deleted key stays deleted (unless a later write was in flight);
//   - right after a kill, `jog fsck --deep` finds no damaged object (only
//     the orphan blobs and temp files recovery removes); after the last
//     cycle the server is stopped and `jog fsck --deep` must exit 0.
//
// Content is a deterministic function of (key, generation, part), so the
// model keeps only sizes and MD5s. Half the writes are encrypted (SSE-S3,
// SSE-KMS, SSE-C, drawn from the seed; sse.go): the model keeps each
// version's encryption and SSE-C key, reads with the key, and checks that
// a HEAD after a restart reports the encryption it was written with. Each key is used by one worker at a
// time, so per key the order of acknowledgements is the order of commits
// and at most one operation per key is in flight at a kill.
package crash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Config sets up a run.
type Config struct {
	Bin     string // the jog binary
	DataDir string // a fresh, empty directory
	Cycles  int    // kill -9 / restart cycles
	Workers int    // concurrent clients
	Keys    int    // size of the key space
	// Each cycle runs the workload for a random time in [MinRun, MaxRun]
	// before the kill.
	MinRun, MaxRun time.Duration
	Seed           uint64
	// FsckEvery: run `jog fsck --deep` on the data dir right after every
	// FsckEvery-th kill, before the restart (0: never). The check opens the
	// database, so SQLite's crash recovery then happens in fsck, not the
	// server: every other cycle is a good mix.
	FsckEvery int
	// Meta, when set, is the server's and fsck's --meta (a postgres://
	// URL): the metadata lives there, the blobs in DataDir.
	Meta string
	// Gateways is the number of servers (1 if 0); more than one needs
	// Meta. They share Meta and DataDir, the workload's requests are
	// spread over them, and each cycle ends with SIGKILL to one of them
	// at random, or in a quarter of the cycles to all.
	Gateways int
	Log      io.Writer // progress lines; nil for none
}

// Result counts what a run did and found. Lost, Corrupt, Violations and
// CrashDamage must be zero and FinalFsckExit 0.
type Result struct {
	Cycles       int
	StartupKills int // extra kills during start-up (recovery), before the server was ready
	// Kills counts each server's SIGKILLs at the end of a cycle; AllKilled
	// the cycles that killed every server (with more than one). Requests
	// counts the requests sent to each server.
	Kills     []int
	AllKilled int
	Requests  []int64
	Ops       int64 // requests sent by the workload
	// Acked counts acknowledged mutations: PUTs, completed multipart
	// uploads, copies and DELETEs.
	Acked, AckedPuts, AckedMultipart, AckedCopies, AckedDeletes int64
	// Verified: after a restart, the latest acknowledged state of a key
	// written in the cycle read back exactly. Rechecked: the same for keys
	// the cycle did not touch.
	Verified, Rechecked int
	// Superseded: an acknowledged state replaced by a later write that
	// was in flight at the kill (allowed).
	Superseded int
	// UnackPresent / UnackAbsent: operations in flight at the kill whose
	// effect is / is not there after the restart (both allowed).
	UnackPresent, UnackAbsent int
	// NotSent: mutations refused at connect by the dead server (no effect).
	// ServerErrors: mutations answered with a 5xx (outcome unknown).
	NotSent, ServerErrors int
	// Pauses: cycles whose last stallAfter brought no answer while
	// requests waited (answers resumed later). Stalls: no answer for
	// stuckAfter more; the server was then stopped with SIGQUIT, which
	// writes its goroutines to server.log.
	Pauses, Stalls int
	Lost           int // acknowledged states missing after a restart
	Corrupt        int // bodies that match no whole version, or not their ETag
	LiveReads      int // GETs during the workload that matched the model
	// CrashOrphans and CrashTemp are what fsck found right after kills
	// (recovery removes them); CrashDamage any other problem it found.
	CrashChecks, CrashOrphans, CrashTemp, CrashDamage int
	// In the versioned and object-lock buckets: VAcked acknowledged
	// mutations, of which VAckedVersions new versions (PUTs, copies,
	// multipart uploads), VAckedMarkers delete markers and VAckedRemoves
	// deletes of a version. After restarts, VersionsVerified versions read
	// back exactly by ID and MarkersVerified delete markers were listed in
	// place; LockedVerified locked versions kept their lock and refused
	// DeleteObject (403), BypassDeleted GOVERNANCE ones were then deleted
	// with the bypass. LockRefusals: deletes of locked versions refused
	// during the workload.
	VAcked, VAckedVersions, VAckedMarkers, VAckedRemoves             int64
	VersionsVerified, MarkersVerified, LockedVerified, BypassDeleted int
	LockRefusals                                                     int
	// ExpiredDeleted: versions deleted after their retention ended.
	ExpiredDeleted int
	// FsckVersions and FsckMarkers: the final fsck's count of object
	// versions and delete markers, which must be the model's.
	FsckVersions, FsckMarkers int
	// Encryption at rest: AckedSSE counts acknowledged writes (in every
	// bucket) by mode, in encModes' order (SSE-S3, SSE-KMS, SSE-C);
	// LostSSE and CorruptSSE are the encrypted ones of Lost and Corrupt;
	// HeadsSSE the HEADs after restarts that reported an encrypted
	// version's encryption as written. CrashUnverifiable and
	// FsckUnverifiable: the SSE-C versions fsck --deep noted as not
	// verifiable without the key after kills and at the end (the latter
	// must be the model's count).
	AckedSSE                            [3]int64
	LostSSE, CorruptSSE, HeadsSSE       int
	CrashUnverifiable, FsckUnverifiable int
	// UploadsAborted: uploads a kill interrupted, aborted after the restart.
	UploadsAborted int
	// TempRecovered: temp files removed by the servers' start-up recovery.
	// TempLeft: on a shared data dir, the killed gateways' temp files left
	// in tmp/ after the last restart (kept for blob.Grace). AgedTemp and
	// AgedOrphans: what the first gateway's recovery and sweep removed once
	// the hour had passed (ageLeftovers).
	TempRecovered, TempLeft, AgedTemp, AgedOrphans int
	Shared                                         bool // the data dir was shared (an external metadata store)

	FinalFsckExit int
	FinalFsck     string // its summary
	Violations    []string
}

func (r *Result) violate(format string, args ...any) {
	if len(r.Violations) < 50 {
		r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
	}
}

// OK reports whether the run found no inconsistency.
func (r *Result) OK() bool {
	return r.Lost == 0 && r.Corrupt == 0 && len(r.Violations) == 0 && r.CrashDamage == 0 && r.FinalFsckExit == 0
}

func (r *Result) String() string {
	s := fmt.Sprintf("cycles %d (+%d kills during start-up), ops %d, writes acknowledged %d (put %d, multipart %d, copy %d, delete %d), "+
		"verified %d, rechecked %d, lost %d, corrupt %d, superseded-by-unacknowledged %d, "+
		"unacknowledged-present %d, unacknowledged-absent %d, not sent %d, answered 5xx %d, live reads %d, pauses %d, stalls %d, "+
		"post-kill fsck runs %d (orphans %d, temp files %d, damage %d), uploads aborted %d, final fsck exit %d; "+
		"versioned and locked buckets: acknowledged %d (versions %d, delete markers %d, version deletes %d), "+
		"versions verified by ID %d, delete markers verified %d, locked versions verified %d (refused during the workload %d), "+
		"deleted with governance bypass %d, deleted after their retention ended %d, final fsck versions %d, delete markers %d; "+
		"encrypted writes acknowledged: SSE-S3 %d, SSE-KMS %d, SSE-C %d, encrypted lost %d, corrupt %d, HEADs reporting the encryption %d, "+
		"SSE-C unverifiable by fsck after kills %d, at the end %d",
		r.Cycles, r.StartupKills, r.Ops, r.Acked, r.AckedPuts, r.AckedMultipart, r.AckedCopies, r.AckedDeletes,
		r.Verified, r.Rechecked, r.Lost, r.Corrupt, r.Superseded, r.UnackPresent, r.UnackAbsent, r.NotSent, r.ServerErrors, r.LiveReads, r.Pauses, r.Stalls,
		r.CrashChecks, r.CrashOrphans, r.CrashTemp, r.CrashDamage, r.UploadsAborted, r.FinalFsckExit,
		r.VAcked, r.VAckedVersions, r.VAckedMarkers, r.VAckedRemoves, r.VersionsVerified, r.MarkersVerified,
		r.LockedVerified, r.LockRefusals, r.BypassDeleted, r.ExpiredDeleted, r.FsckVersions, r.FsckMarkers,
		r.AckedSSE[0], r.AckedSSE[1], r.AckedSSE[2], r.LostSSE, r.CorruptSSE, r.HeadsSSE, r.CrashUnverifiable, r.FsckUnverifiable)
	if len(r.Kills) > 1 {
		s += fmt.Sprintf("; gateways %d: kills %v (all at once %d), requests sent %v", len(r.Kills), r.Kills, r.AllKilled, r.Requests)
	}
	s += fmt.Sprintf("; temp files removed by recovery %d", r.TempRecovered)
	if r.Shared {
		s += fmt.Sprintf(", left for the hour's grace %d, removed once it had passed: temp files %d, orphan blobs %d",
			r.TempLeft, r.AgedTemp, r.AgedOrphans)
	}
	return s
}

// A cycle whose last stallAfter brought no answer while requests wait is a
// pause; if stuckAfter more bring none, the server is stuck (a violation).
const (
	stallAfter = 2 * time.Second
	stuckAfter = 30 * time.Second
)

const (
	bucket    = "crash"
	accessKey = "CRASHTESTACCESSKEY01"
	secretKey = "crash-test-secret-key-000000000000000000"
	region    = "us-east-1"
	minPart   = 5 << 20
)

type harness struct {
	cfg     Config
	res     Result
	servers []*server
	client  *s3.Client
	http    *timedClient
	gen     atomic.Uint64
	ops     atomic.Int64

	mu   sync.Mutex // guards keys and res
	keys []*key
	// vers is versioned; locked has object lock enabled.
	vers, locked *vbucket
	bypassed     bool // a GOVERNANCE version was deleted with the bypass in this verify

	stop atomic.Bool // workers stop starting operations
}

// Run runs the harness. An error means the harness itself could not work
// (build, start, a verification read failing); inconsistencies are in the
// Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Keys <= 0 {
		cfg.Keys = 64
	}
	if cfg.MaxRun < cfg.MinRun {
		cfg.MaxRun = cfg.MinRun
	}
	cfg.Gateways = max(cfg.Gateways, 1)
	if cfg.Gateways > 1 && cfg.Meta == "" {
		return nil, errors.New("several gateways need an external metadata store (Meta)")
	}
	h := &harness{cfg: cfg}
	h.res.Kills, h.res.Shared = make([]int, cfg.Gateways), h.shared()
	for i := range cfg.Keys {
		// Two keys per directory, so deletes empty some of them: listings by
		// "/" read the directory index, which must survive kills too.
		h.keys = append(h.keys, &key{name: fmt.Sprintf("d%02d/obj/%03d", i%max(cfg.Keys/2, 1), i)})
	}
	h.vers = newVBucket(bucket+"v", false, max(cfg.Keys/2, 2))
	h.locked = newVBucket(bucket+"l", true, max(cfg.Keys/4, 2))
	h.http = &timedClient{c: awshttp.NewBuildableClient().WithTimeout(2 * time.Minute), sent: map[string]*atomic.Int64{}}
	for n := 1; n <= cfg.Gateways; n++ {
		s, err := newServer(n, filepath.Dir(cfg.DataDir), cfg.Gateways > 1)
		if err != nil {
			return nil, err
		}
		h.servers = append(h.servers, s)
		h.http.sent[s.addr] = new(atomic.Int64)
	}
	h.client = newClient("http://"+h.servers[0].addr, h.http)
	defer func() { // the counts, also when the run fails
		h.res.Ops = h.ops.Load()
		for _, s := range h.servers {
			h.res.Requests = append(h.res.Requests, h.http.sent[s.addr].Load())
		}
	}()
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5bd1e995))
	h.logf("crash harness: %d cycles, %d servers, %d workers, %d keys, run %v–%v per cycle, seed %d, data %s",
		cfg.Cycles, cfg.Gateways, cfg.Workers, cfg.Keys, cfg.MinRun, cfg.MaxRun, cfg.Seed, cfg.DataDir)

	for cycle := 1; cycle <= cfg.Cycles; cycle++ {
		if err := h.restart(ctx, rng, cycle > 1); err != nil {
			return &h.res, err
		}
		if cycle == 1 {
			if err := h.createBuckets(ctx); err != nil {
				h.killAll()
				return &h.res, err
			}
		} else if err := h.verify(ctx); err != nil {
			h.killAll()
			return &h.res, err
		}
		run := cfg.MinRun + time.Duration(rng.Int64N(int64(cfg.MaxRun-cfg.MinRun)+1))
		before := h.res
		ops := h.ops.Load()
		h.http.slowest.Store(0)
		h.http.slow.Store(0)
		killed := h.victims(rng)
		if err := h.workload(ctx, run, rng.Uint64(), killed, rng); err != nil {
			return &h.res, err
		}
		h.res.Cycles = cycle
		inflight := 0
		for _, k := range h.allKeys() {
			if k.inflight != nil || k.pending != nil {
				inflight++
			}
		}
		h.logf("cycle %d: %s killed after %v: %d ops, %d acknowledged, %d in flight; slowest answer %v, %d over 1 s",
			cycle, h.named(killed), run.Round(time.Millisecond), h.ops.Load()-ops, h.res.Acked-before.Acked, inflight,
			time.Duration(h.http.slowest.Load()).Round(time.Millisecond), h.http.slow.Load())
		if cfg.FsckEvery > 0 && cycle%cfg.FsckEvery == 0 {
			if err := h.fsckAfterKill(ctx); err != nil {
				return &h.res, err
			}
		}
	}
	// The last restart: verify, let the orphan sweeps end, stop gracefully
	// (on a shared data dir, let the hour's grace pass), then fsck must be
	// clean.
	swept := h.sweeps()
	if err := h.restart(ctx, nil, false); err != nil {
		return &h.res, err
	}
	if err := h.verify(ctx); err != nil {
		h.killAll()
		return &h.res, err
	}
	if err := h.waitSwept(ctx, swept); err != nil {
		h.killAll()
		return &h.res, err
	}
	if err := h.stopAll(); err != nil {
		return &h.res, err
	}
	if h.shared() {
		if err := h.ageLeftovers(ctx); err != nil {
			return &h.res, err
		}
	}
	code, sum, rep, err := h.fsck(ctx)
	if err != nil {
		return &h.res, err
	}
	h.res.FinalFsckExit = code
	h.res.FinalFsck = sum
	h.checkFsckCounts(rep)
	h.logf("final fsck --deep: exit %d: %s", code, sum)
	return &h.res, nil
}

// victims picks the servers a cycle kills: the only one; or one of
// several at random, or all of them in a quarter of the cycles.
func (h *harness) victims(rng *rand.Rand) []*server {
	if len(h.servers) == 1 {
		return h.servers
	}
	if rng.IntN(4) == 0 {
		h.res.AllKilled++
		return h.servers
	}
	return []*server{h.servers[rng.IntN(len(h.servers))]}
}

// pick is one of ss at random (drawing nothing when there is one).
func pick(rng *rand.Rand, ss []*server) *server {
	if len(ss) == 1 {
		return ss[0]
	}
	return ss[rng.IntN(len(ss))]
}

// named names the servers ss for the log.
func (h *harness) named(ss []*server) string {
	switch {
	case len(h.servers) == 1:
		return "the server"
	case len(ss) == len(h.servers):
		return "every gateway"
	case len(ss) == 1:
		return fmt.Sprintf("gateway %d", ss[0].n)
	}
	return fmt.Sprintf("%d gateways", len(ss))
}

// checkFsckCounts: the final fsck saw as many object versions and delete
// markers as the model holds (the plain bucket's live keys, the versioned
// buckets' versions and markers).
func (h *harness) checkFsckCounts(rep fsckReport) {
	h.res.FsckVersions, h.res.FsckMarkers = rep.Summary.Objects, rep.Summary.DeleteMarkers
	h.res.FsckUnverifiable = rep.Summary.Unverifiable
	objects := h.countVersions(false, false)
	for _, k := range h.allKeys() {
		if k.broken {
			return // the model no longer knows what is there
		}
		if k.state != nil && !k.state.deleted {
			objects++
		}
	}
	if markers := h.countVersions(true, false); rep.Summary.Objects != objects || rep.Summary.DeleteMarkers != markers {
		h.res.violate("final fsck counts %d object versions and %d delete markers; the model %d and %d",
			rep.Summary.Objects, rep.Summary.DeleteMarkers, objects, markers)
	}
	if ssec := h.modelSSEC(); rep.Summary.Unverifiable != ssec {
		h.res.violate("final fsck --deep notes %d SSE-C versions as unverifiable; the model has %d", rep.Summary.Unverifiable, ssec)
	}
}

// createBuckets creates the plain bucket, the versioned one and the one
// with object lock.
func (h *harness) createBuckets(ctx context.Context) error {
	for _, in := range []*s3.CreateBucketInput{
		{Bucket: aws.String(bucket)}, {Bucket: aws.String(h.vers.name)},
		{Bucket: aws.String(h.locked.name), ObjectLockEnabledForBucket: aws.Bool(true)},
	} {
		if _, err := h.client.CreateBucket(ctx, in); err != nil {
			return fmt.Errorf("create bucket %s: %w", aws.ToString(in.Bucket), err)
		}
	}
	_, err := h.client.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(h.vers.name),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
	if err != nil {
		return fmt.Errorf("enable versioning: %w", err)
	}
	return nil
}

// allKeys is every key of the three buckets.
func (h *harness) allKeys() []*key {
	return slices.Concat(h.keys, h.vers.keys, h.locked.keys)
}

// countVersions counts the model's delete markers (markers), locked
// versions (locked) or other versions in the versioned buckets.
func (h *harness) countVersions(markers, locked bool) int {
	n := 0
	for _, k := range slices.Concat(h.vers.keys, h.locked.keys) {
		for _, x := range k.vers {
			switch {
			case locked:
				if x.lock.locked() {
					n++
				}
			case x.marker == markers:
				n++
			}
		}
	}
	return n
}

func (h *harness) logf(format string, args ...any) {
	if h.cfg.Log != nil {
		fmt.Fprintf(h.cfg.Log, format+"\n", args...)
	}
}
