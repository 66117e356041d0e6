// Package config holds the settings of `jog server`: a struct with defaults,
// loaded from flags and JOG_* environment variables, checked by Validate.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/console"
	"github.com/jogstore/jog/internal/durq"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/kms/kmip"
	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/replicate"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/units"
)

// Config is the server configuration.
type Config struct {
	Addr      string
	DataDir   string
	AccessKey string
	SecretKey string
	Region    string
	Domain    string
	LogLevel  string
	LogFormat string
	// Meta names the metadata backend: "sqlite", or a PostgreSQL URL or
	// key=value string (MetaBackend). Blobs are always in the data dir.
	// It may hold a password: show it only through RedactMeta.
	Meta string
	// MaxRequests bounds the S3 requests served at once (503 SlowDown
	// beyond); 0 means unbounded.
	MaxRequests int
	// AnonymousShare is the fraction of MaxRequests that requests not
	// authenticated (yet) may hold at once: anonymous ones, browser form
	// uploads before their signature is checked, console sign-ins, IAM and
	// STS calls while their forms are read
	// (MaxAnonymousRequests).
	AnonymousShare float64
	// BodyIdleTimeout is the longest the server waits for a request
	// body's next bytes, and BodyMinRate (bytes/s) the least average rate
	// a body must keep up after that much grace (internal/bodytimeout):
	// beyond, 400 RequestTimeout. 0 turns each off.
	BodyIdleTimeout time.Duration
	BodyMinRate     Rate
	// TLSCert and TLSKey, when both set, make the server speak HTTPS.
	TLSCert string
	TLSKey  string
	// Fsync is FsyncAlways (default: every acknowledged write is on
	// stable storage) or FsyncNever (for throwaway data: tests,
	// benchmarks).
	Fsync Fsync
	// InlineMax is the largest object, in bytes, kept inline in the
	// metadata database instead of a blob file (service.Options); 0 turns
	// inlining off.
	InlineMax int
	// PackMax is the largest blob, in bytes, stored as a record in a shared
	// pack file instead of a file of its own (ADR 0007, disk.Store); 0
	// turns packing off.
	PackMax int
	// DebugAddr, when set, serves Go's runtime profiles (net/http/pprof)
	// on a separate listener: never on the S3 port, off by default.
	DebugAddr string
	// LifecycleDay is the length of a day in lifecycle rules (Expiration
	// Days, DaysAfterInitiation): 24h as in S3; tests shorten it.
	LifecycleDay time.Duration
	// LifecycleInterval is how often the lifecycle worker starts a pass
	// over the buckets with lifecycle rules; 0 turns the worker off.
	LifecycleInterval time.Duration
	// IAMKey is the server key sealing IAM secret access keys, base64
	// (keyring.ParseKey), from JOG_IAM_KEY only: no flag, so that it never
	// shows in a process listing. Empty: the data dir's iam.key.
	IAMKey string
	// SSEKey is the master key of the built-in KMS (encryption at rest),
	// base64, from JOG_SSE_KEY only, as IAMKey. Empty: the data dir's
	// sse.key.
	SSEKey string
	// DefaultObjectOwnership is the Object Ownership setting (an
	// acl.Ownerships) of a bucket created without an
	// x-amz-object-ownership header: BucketOwnerEnforced, S3's, by
	// default; ObjectWriter or BucketOwnerPreferred enable ACLs on new
	// buckets, for tools of the ACL era.
	DefaultObjectOwnership string
	// AllowInsecureSSEC accepts SSE-C keys over plain HTTP: for tests on
	// loopback only, the key crossing the network in the clear.
	AllowInsecureSSEC bool
	// IAMBootstrap, when set, is a JSON file of groups, users, their
	// inline policies and access keys created at start-up where absent
	// (iam.Bootstrap): provisioning without the IAM API.
	IAMBootstrap string
	// TrustForwardedFor takes the client's address (aws:SourceIp) and
	// scheme (aws:SecureTransport) from X-Forwarded-For and
	// X-Forwarded-Proto: only behind a proxy that sets them.
	TrustForwardedFor bool
	// QoSReadCapacity and QoSWriteCapacity are what the server can carry,
	// in bytes per second, for reads and writes: the most throughput
	// reservations active at one instant may sum to (docs/QOS.md). 0: not
	// configured, and reservations are refused.
	QoSReadCapacity  Rate
	QoSWriteCapacity Rate
	// QoSRequestCapacity is the requests per second the server can serve:
	// the most request-rate reservations active at one instant may sum to
	// (95% of it), and the rate the scheduler paces requests at while one
	// is active. 0: none, and request-rate reservations are refused.
	QoSRequestCapacity RequestRate
	// ConfigFile is a TOML file of settings (--config, JOG_CONFIG): keys
	// are the flag names; flags and JOG_* variables override it (file.go).
	ConfigFile string
	// MetricsToken, when set, is the bearer token that scrapes /metrics on
	// the S3 port (docs/OPERATIONS.md); MetricsPublic opens it to
	// unsigned requests. MetricsBuckets bounds the buckets whose usage
	// /metrics reports (0: none).
	MetricsToken   string
	MetricsPublic  bool
	MetricsBuckets int
	// Replicate, when its URL is set (s3://bucket/path), streams the
	// SQLite metadata to that bucket with Litestream while the server
	// runs (internal/replicate, ADR 0021): --replicate-to, its Endpoint
	// for anything but AWS, its Region. The keys come from
	// JOG_REPLICATE_ACCESS_KEY and JOG_REPLICATE_SECRET_KEY only (else the
	// AWS SDK's default chain): no flag, so that they never show in a
	// process listing.
	Replicate replicate.Target
	// SQLiteCheckpoints false turns the SQLite writer's automatic WAL
	// checkpoints off, for a Litestream process run beside the server
	// (litestream replicate -exec) to run them; --replicate-to does so
	// itself.
	SQLiteCheckpoints bool
	// AccessLog is where the access log goes: "" (off), "stderr", or a
	// file path (reopened on SIGUSR1). AccessLogFormat is json or text;
	// AccessLogSample the fraction of successful requests written (errors,
	// status 400 and above, always are).
	AccessLog       string
	AccessLogFormat string
	AccessLogSample float64
	// BucketLogInterval is how often the server access logs of buckets
	// with logging enabled (PutBucketLogging) are delivered to their
	// target buckets; they are also delivered at start-up.
	BucketLogInterval time.Duration
	// BucketLogSpoolMax bounds the bytes of server access log records
	// awaiting delivery on this gateway's disk (internal/bucketlog): past
	// it new records are dropped, and the records of failing targets are
	// kept within half of it (both logged and counted).
	BucketLogSpoolMax Size
	// Console serves the web console at /console/ (internal/console, ADR
	// 0023) on a listener of its own, ConsoleAddr (console.go: derived
	// from Addr when empty), or on the S3 port when ConsoleAddr is
	// ConsoleSame (ADR 0025); ConsoleS3URL is the S3 endpoint its links
	// and previews name (else the console's host at the S3 port);
	// ConsoleSession is how long a sign-in lasts.
	Console        bool
	ConsoleAddr    string
	ConsoleS3URL   string
	ConsoleSession time.Duration
	// Notify are the settings of bucket event notifications (notify.go).
	Notify Notify
	// Replication are the settings of bucket replication's targets
	// (replication.go).
	Replication Replication
	// KMIP is the external KMS of SSE-KMS keys (kms.go); no Endpoint: the
	// built-in KMS holds them.
	KMIP kmip.Config

	envErrs []error // JOG_* values BindFlags could not parse
	layers  *Layers // where each setting came from, once ApplyFile ran

	// table is the settings table BindFlags registered (settings.go),
	// its rows pointing into the Config BindFlags ran on.
	table []setting
}

// Fsync is --fsync: whether acknowledged writes are synced to stable
// storage. Validate accepts FsyncAlways and FsyncNever only.
type Fsync string

// The values of --fsync.
const (
	FsyncAlways Fsync = "always"
	FsyncNever  Fsync = "never"
)

// Off reports whether fsync is off (--fsync never): the stores skip their
// syncs, and acknowledged writes may be lost on power failure.
func (f Fsync) Off() bool { return f == FsyncNever }

// MaxInline bounds --inline-max: each request in flight may hold this much
// in memory, and SQLite rows past a few MiB are slow.
const MaxInline = 1 << 20

// MaxPack bounds --pack-max: packs are for small blobs.
const MaxPack = 16 << 20

// DefaultBucketLogSpoolMax is --bucket-log-spool-max's default.
const DefaultBucketLogSpoolMax = 1 << 30

// Default returns the zero-setup configuration. Where a component owns a
// default (inlining, packing, the event queue), it is that package's.
func Default() Config {
	return Config{Addr: ":9000", DataDir: "./data", Meta: "sqlite", Region: sigv4.DefaultRegion, LogLevel: "info", LogFormat: "text", Fsync: FsyncAlways, MaxRequests: 1024, AnonymousShare: 0.25,
		BodyIdleTimeout: 20 * time.Second, BodyMinRate: 1 << 10, InlineMax: service.DefaultInlineMax, PackMax: disk.DefaultPackMax,
		LifecycleDay: lifecycle.Day, LifecycleInterval: time.Hour, DefaultObjectOwnership: acl.BucketOwnerEnforced,
		MetricsBuckets: 100, SQLiteCheckpoints: true,
		AccessLogFormat: "json", AccessLogSample: 1, BucketLogInterval: 5 * time.Minute, BucketLogSpoolMax: DefaultBucketLogSpoolMax,
		Console: true, ConsoleSession: console.DefaultSession,
		Notify: Notify{QueueMax: durq.DefaultMaxBytes}, KMIP: kmip.Config{Timeout: kmip.DefaultTimeout}}
}

// MaxAnonymousRequests is how many of MaxRequests the requests not
// authenticated (yet) may hold at once: AnonymousShare of them, rounded
// up, at least one; 0 (no bound) when MaxRequests is 0.
func (c Config) MaxAnonymousRequests() int {
	if c.MaxRequests <= 0 {
		return 0
	}
	return max(1, int(math.Ceil(float64(c.MaxRequests)*c.AnonymousShare)))
}

// LeaveCheckpoints reports whether the SQLite store must leave WAL
// checkpoints to Litestream: replicating in the server, or beside it.
func (c Config) LeaveCheckpoints() bool { return c.Replicate.URL != "" || !c.SQLiteCheckpoints }

// Rate is a flag of bytes per second: a number with an optional unit and
// "/s" (units.ParseRate: "300MB/s", "300MiB").
type Rate int64

// String implements flag.Value: the rate in the largest unit that holds it
// exactly ("150MB/s", "1KiB/s", "0"), which Set reads back (--print-config
// writes it).
func (r *Rate) String() string {
	if *r == 0 {
		return "0"
	}
	return units.Exact(int64(*r)) + "/s"
}

// Set implements flag.Value.
func (r *Rate) Set(s string) error {
	n, err := units.ParseRate(s)
	if err != nil {
		return err
	}
	*r = Rate(n)
	return nil
}

// RequestRate is a flag of requests per second: a whole number, not
// negative, with an optional "/s" ("2000", "2000/s").
type RequestRate int64

// String implements flag.Value.
func (r *RequestRate) String() string { return strconv.FormatInt(int64(*r), 10) }

// Set implements flag.Value.
func (r *RequestRate) Set(s string) error {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && strings.EqualFold(t[len(t)-2:], "/s") {
		t = t[:len(t)-2]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("invalid request rate %q: want a whole number of requests per second, e.g. 2000", s)
	}
	*r = RequestRate(n)
	return nil
}

// Validate checks the configuration for mistakes a user can fix.
func (c Config) Validate() error {
	errs := append([]error(nil), c.envErrs...)
	if c.Addr == "" {
		errs = append(errs, errors.New("--addr must not be empty"))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir must not be empty"))
	}
	if err := checkMeta(c.Meta); err != nil {
		errs = append(errs, err)
	}
	switch {
	case c.AccessKey == "" && c.SecretKey != "":
		errs = append(errs, fmt.Errorf("%s is set but no access key (--access-key or %s): give both or neither", c.layers.Given("secret-key"), envName("access-key")))
	case c.AccessKey != "" && c.SecretKey == "":
		errs = append(errs, fmt.Errorf("%s is set but no secret key (--secret-key or %s): give both or neither", c.layers.Given("access-key"), envName("secret-key")))
	}
	if c.AccessKey != "" && c.SecretKey != "" && len(c.SecretKey) < 8 {
		errs = append(errs, errors.New("--secret-key must be at least 8 characters"))
	}
	if c.Region == "" {
		errs = append(errs, errors.New("--region must not be empty"))
	}
	if _, err := c.Level(); err != nil {
		errs = append(errs, err)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: want text or json", c.LogFormat))
	}
	if c.MaxRequests < 0 {
		errs = append(errs, errors.New("--max-requests must not be negative"))
	}
	if !(c.AnonymousShare > 0 && c.AnonymousShare <= 1) {
		errs = append(errs, fmt.Errorf("--anonymous-share %v: want a fraction above 0, at most 1", c.AnonymousShare))
	}
	if c.BodyIdleTimeout < 0 || c.BodyMinRate < 0 {
		errs = append(errs, errors.New("--body-idle-timeout and --body-min-rate must not be negative"))
	}
	if c.BodyMinRate > 0 && c.BodyIdleTimeout == 0 {
		errs = append(errs, errors.New("--body-min-rate applies after --body-idle-timeout: set one, or --body-min-rate 0"))
	}
	if c.InlineMax < 0 || c.InlineMax > MaxInline {
		errs = append(errs, fmt.Errorf("--inline-max must be between 0 and %d bytes", MaxInline))
	}
	if c.PackMax < 0 || c.PackMax > MaxPack {
		errs = append(errs, fmt.Errorf("--pack-max must be between 0 and %d bytes", MaxPack))
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("--tls-cert and --tls-key must be given together"))
	}
	if c.LifecycleDay <= 0 {
		errs = append(errs, errors.New("--lifecycle-day must be positive"))
	}
	if c.LifecycleInterval < 0 {
		errs = append(errs, errors.New("--lifecycle-interval must not be negative"))
	}
	if c.IAMKey != "" {
		if _, err := keyring.ParseKey(c.IAMKey); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", keyring.EnvVar, err))
		}
	}
	if c.SSEKey != "" {
		if _, err := keyring.ParseKey(c.SSEKey); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", kms.MasterKeyEnv, err))
		}
	}
	if !acl.ValidOwnership(c.DefaultObjectOwnership) {
		errs = append(errs, fmt.Errorf("--default-object-ownership %q: want %s", c.DefaultObjectOwnership, strings.Join(acl.Ownerships, ", ")))
	}
	if c.QoSReadCapacity < 0 || c.QoSWriteCapacity < 0 || c.QoSRequestCapacity < 0 {
		errs = append(errs, errors.New("--qos-read-capacity, --qos-write-capacity and --qos-request-capacity must not be negative"))
	}
	if c.MetricsBuckets < 0 {
		errs = append(errs, errors.New("--metrics-buckets must not be negative"))
	}
	if c.AccessLogFormat != "text" && c.AccessLogFormat != "json" {
		errs = append(errs, fmt.Errorf("--access-log-format %q: want text or json", c.AccessLogFormat))
	}
	if !(c.AccessLogSample > 0 && c.AccessLogSample <= 1) {
		errs = append(errs, fmt.Errorf("--access-log-sample %v: want a fraction above 0, at most 1", c.AccessLogSample))
	}
	if c.BucketLogInterval <= 0 {
		errs = append(errs, errors.New("--bucket-log-interval must be positive"))
	}
	if c.BucketLogSpoolMax < 1<<20 {
		errs = append(errs, fmt.Errorf("--bucket-log-spool-max %d: want at least 1MiB", c.BucketLogSpoolMax))
	}
	if c.Fsync != FsyncAlways && c.Fsync != FsyncNever {
		errs = append(errs, fmt.Errorf("--fsync %q: want always or never", c.Fsync))
	}
	if c.Replicate.URL != "" && MetaBackend(c.Meta) != "sqlite" {
		errs = append(errs, errors.New("--replicate-to replicates the SQLite metadata: back PostgreSQL up with its own tools"))
	}
	if c.Replicate.URL != "" && !strings.HasPrefix(c.Replicate.URL, "s3://") {
		errs = append(errs, fmt.Errorf("--replicate-to %q: want s3://bucket/path", c.Replicate.URL))
	}
	errs = append(errs, c.validateConsole()...)
	errs = append(errs, c.validateNotify()...)
	errs = append(errs, c.validateKMIP()...)
	errs = append(errs, c.validateReplication()...)
	return errors.Join(errs...)
}

// Level parses LogLevel.
func (c Config) Level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return l, fmt.Errorf("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// Getenv is os.Getenv, for callers that pass the environment explicitly.
var Getenv = os.Getenv
