package service

import (
	"log/slog"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/cors"
	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/sse"
)

// Service is the object layer over the two stores. The S3 API's handlers
// call it (the console's requests reach it through them), and so does the
// server's background work: the orphan sweep, the lifecycle worker, bucket
// log delivery and the relay of other gateways' changes. jog fsck and jog
// bench do not: fsck reads the stores directly, bench speaks S3.
type Service struct {
	meta  meta.Store
	blobs blob.Store
	log   *slog.Logger
	pins  *pins
	// The per-bucket caches, all dropped by dropBucketCaches when a bucket
	// is created or deleted.
	// corsRules caches each bucket's compiled CORS rules (BucketCORS).
	corsRules *configCache[*cors.Rules]
	// lifecycleRules caches each bucket's compiled lifecycle rules
	// (BucketLifecycle), evaluated with lifecycleDay.
	lifecycleRules *configCache[*lifecycle.Rules]
	lifecycleDay   time.Duration
	commitWithin   time.Duration // Options.CommitWithin
	// lockDefaultsCache caches the default retention of buckets with
	// object lock (lockDefaults), read on every write to them.
	lockDefaultsCache *configCache[LockConfig]
	// bucketAccess caches what decides requests on each bucket beyond
	// identity policies (BucketAccess: its policy, ACL, Object Ownership
	// and PublicAccessBlock), read by the authorizer on every request but
	// the root's.
	bucketAccess *configCache[*Access]
	// bucketLogging caches each bucket's server access logging target
	// (BucketLoggingOf), read for every request's record.
	bucketLogging *configCache[*BucketLogging]
	// notifyRules caches each bucket's compiled notification
	// configuration, read on every write when notify.queue is set.
	notifyRules *configCache[*notify.Rules]
	notify      notifier
	// bucketEncryption caches each bucket's default encryption
	// (encryptionFor), read on every write that asks for none.
	bucketEncryption *configCache[*sse.BucketDefault]
	// keys makes and opens data keys (Options.Keys).
	keys *sse.Keys
	// replTargets are the targets replication rules may name
	// (Options.ReplicationTargets).
	replTargets bucketrepl.Targets
	repl        replicator

	inlineMax  int       // objects up to this size are kept in the metadata store
	inlineBufs sync.Pool // *[]byte of capacity inlineMax
}

// DefaultInlineMax is the size up to which objects are stored inline in the
// metadata database rather than in blob files (ADR 0005).
const DefaultInlineMax = 16 << 10

// Options tunes a Service.
type Options struct {
	// InlineMax is the largest object (bytes) stored inline in the
	// metadata store (DefaultInlineMax in New): 0, as --inline-max 0,
	// means never.
	InlineMax int
	// LifecycleDay is the length of a lifecycle day (lifecycle.Day when
	// 0): tests shorten it to watch rules apply.
	LifecycleDay time.Duration
	// CommitWithin, when positive, bounds the time from a new blob's
	// commit to the metadata commit that refers to it (commitContext):
	// blob.Grace/2 where gateways share the data dir, whose orphan
	// sweeps spare only blobs younger than blob.Grace.
	CommitWithin time.Duration
	// Notify receives the events of every object created or removed in
	// a bucket with a notification configuration; nil turns event
	// notifications off (PutBucketNotificationConfiguration then accepts
	// no destination).
	Notify notify.Queue
	// Keys makes and opens the data keys of encrypted objects; nil serves
	// SSE-C alone (SSE-S3 and SSE-KMS then fail with
	// kms.ErrUnavailable).
	Keys *sse.Keys
	// ReplicationTargets are the remote S3 endpoints bucket replication
	// rules may name (bucketrepl.Targets.Bind); none refuses every
	// PutBucketReplication.
	ReplicationTargets bucketrepl.Targets
	// Replication queues the changes replication rules select; nil turns
	// delivery off (configurations are still stored).
	Replication ReplicationQueue
}

// New returns a Service over the given stores with default options.
func New(m meta.Store, b blob.Store, log *slog.Logger) *Service {
	return NewWith(m, b, log, Options{InlineMax: DefaultInlineMax})
}

// NewWith returns a Service over the given stores.
func NewWith(m meta.Store, b blob.Store, log *slog.Logger, opts Options) *Service {
	s := &Service{meta: m, blobs: b, log: log, pins: newPins(), inlineMax: opts.InlineMax,
		corsRules:         newConfigCache[*cors.Rules](ConfigCacheTTL, configCacheMax),
		lifecycleRules:    newConfigCache[*lifecycle.Rules](ConfigCacheTTL, configCacheMax),
		lockDefaultsCache: newConfigCache[LockConfig](ConfigCacheTTL, configCacheMax),
		bucketAccess:      newConfigCache[*Access](ConfigCacheTTL, configCacheMax),
		bucketLogging:     newConfigCache[*BucketLogging](ConfigCacheTTL, configCacheMax),
		notifyRules:       newConfigCache[*notify.Rules](ConfigCacheTTL, configCacheMax),
		bucketEncryption:  newConfigCache[*sse.BucketDefault](ConfigCacheTTL, configCacheMax),
		keys:              opts.Keys, replTargets: opts.ReplicationTargets,
		lifecycleDay: opts.LifecycleDay, commitWithin: opts.CommitWithin}
	if s.lifecycleDay <= 0 {
		s.lifecycleDay = lifecycle.Day
	}
	s.inlineMax = max(s.inlineMax, 0)
	s.notify.queue = opts.Notify
	s.repl = replicator{queue: opts.Replication, rules: newConfigCache[*bucketrepl.Rules](ConfigCacheTTL, configCacheMax)}
	s.inlineBufs.New = func() any { b := make([]byte, 0, s.inlineMax); return &b }
	return s
}
