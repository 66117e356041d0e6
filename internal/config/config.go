// Package config holds the settings of `jog server`: a struct with defaults,
// loaded from flags and JOG_* environment variables, checked by Validate.
package config

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam/keyring"
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
	// uploads before their signature is checked, console sign-ins
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
	// Fsync is "always" (default: every acknowledged write is on stable
	// storage) or "never" (for throwaway data: tests, benchmarks).
	Fsync string
	// InlineMax is the largest object, in bytes, kept inline in the
	// metadata database instead of a blob file; 0 turns inlining off.
	InlineMax int
	// PackMax is the largest blob, in bytes, stored as a record in a shared
	// pack file instead of a file of its own (ADR 0007); 0 turns packing off.
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
	// ReplicateTo, when set (s3://bucket/path), streams the SQLite
	// metadata to that bucket with Litestream while the server runs
	// (internal/replicate, ADR 0021); ReplicateEndpoint is the S3
	// endpoint for anything but AWS, ReplicateRegion its region. The keys
	// come from JOG_REPLICATE_ACCESS_KEY and JOG_REPLICATE_SECRET_KEY only
	// (else the AWS SDK's default chain): no flag, so that they never show
	// in a process listing.
	ReplicateTo        string
	ReplicateEndpoint  string
	ReplicateRegion    string
	ReplicateAccessKey string
	ReplicateSecretKey string
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

	envErrs []error // JOG_* values BindFlags could not parse
	layers  *Layers // where each setting came from, once ApplyFile ran

	// names are the settings' flags, in BindFlags order: the config
	// file's keys.
	names []string
}

// MaxInline bounds --inline-max: each request in flight may hold this much
// in memory, and SQLite rows past a few MiB are slow.
const MaxInline = 1 << 20

// MaxPack bounds --pack-max: packs are for small blobs.
const MaxPack = 16 << 20

// DefaultBucketLogSpoolMax is --bucket-log-spool-max's default.
const DefaultBucketLogSpoolMax = 1 << 30

// Default returns the zero-setup configuration.
func Default() Config {
	return Config{Addr: ":9000", DataDir: "./data", Meta: "sqlite", Region: "us-east-1", LogLevel: "info", LogFormat: "text", Fsync: "always", MaxRequests: 1024, AnonymousShare: 0.25,
		BodyIdleTimeout: 20 * time.Second, BodyMinRate: 1 << 10, InlineMax: 16 << 10, PackMax: 1 << 20,
		LifecycleDay: 24 * time.Hour, LifecycleInterval: time.Hour,
		MetricsBuckets: 100, SQLiteCheckpoints: true,
		AccessLogFormat: "json", AccessLogSample: 1, BucketLogInterval: 5 * time.Minute, BucketLogSpoolMax: DefaultBucketLogSpoolMax,
		Console: true, ConsoleSession: 12 * time.Hour}
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
func (c Config) LeaveCheckpoints() bool { return c.ReplicateTo != "" || !c.SQLiteCheckpoints }

// BindFlags registers every setting on fs. Each flag's default comes from
// its JOG_* environment variable when set, else from c; an environment value
// the flag cannot parse is reported by Validate.
func (c *Config) BindFlags(fs *flag.FlagSet, getenv func(string) string) {
	var names []string
	str := func(p *string, name, usage string) {
		fs.StringVar(p, name, *p, usage+" (env "+envName(name)+")")
		names = append(names, name)
	}
	num := func(p *int, name, usage string) {
		fs.IntVar(p, name, *p, usage+" (env "+envName(name)+")")
		names = append(names, name)
	}
	dur := func(p *time.Duration, name, usage string) {
		fs.DurationVar(p, name, *p, usage+" (env "+envName(name)+")")
		names = append(names, name)
	}
	rate := func(p flag.Value, name, usage string) {
		fs.Var(p, name, usage+" (env "+envName(name)+")")
		names = append(names, name)
	}
	str(&c.ConfigFile, fileFlag, "TOML file of settings, keys named as these flags (data-dir = \"/srv/jog\"); flags and JOG_* variables override it")
	str(&c.Addr, "addr", "listen address")
	str(&c.DataDir, "data-dir", "directory for metadata and object data")
	str(&c.Meta, "meta", metaUsage)
	str(&c.AccessKey, "access-key", "S3 access key ID (generated on first start when empty)")
	str(&c.SecretKey, "secret-key", "S3 secret access key")
	str(&c.Region, "region", "region reported to clients and required in signatures")
	str(&c.Domain, "domain", "base domain for virtual-hosted-style requests (<bucket>.<domain>)")
	str(&c.LogLevel, "log-level", "debug, info, warn or error")
	str(&c.LogFormat, "log-format", "text or json")
	num(&c.MaxRequests, "max-requests", "S3 requests served at once; more get 503 SlowDown (0 = no bound)")
	fs.Float64Var(&c.AnonymousShare, "anonymous-share", c.AnonymousShare,
		"fraction of --max-requests that requests not authenticated (yet) may hold at once (anonymous ones, form uploads before their signature is checked, console sign-ins); more get 503 SlowDown (env "+envName("anonymous-share")+")")
	names = append(names, "anonymous-share")
	dur(&c.BodyIdleTimeout, "body-idle-timeout", "longest wait for a request body's next bytes; longer gets 400 RequestTimeout and nothing stored (0 = no limit, nor --body-min-rate)")
	rate(&c.BodyMinRate, "body-min-rate", "least average rate of a request body once --body-idle-timeout has passed, e.g. 1KiB/s; slower gets 400 RequestTimeout (0 = none)")
	num(&c.InlineMax, "inline-max", "objects up to this many bytes are stored in the metadata database, not in files (0 = never)")
	num(&c.PackMax, "pack-max", "blobs up to this many bytes are appended to shared pack files, not written as files of their own (0 = never)")
	str(&c.TLSCert, "tls-cert", "PEM certificate file: serve HTTPS (with --tls-key)")
	str(&c.TLSKey, "tls-key", "PEM private key file for --tls-cert")
	str(&c.DebugAddr, "debug-addr", "serve Go profiles (/debug/pprof/) on this address, e.g. 127.0.0.1:6060; unauthenticated, keep it private")
	dur(&c.LifecycleDay, "lifecycle-day", "length of a day in lifecycle rules (shorten it only to test rules)")
	dur(&c.LifecycleInterval, "lifecycle-interval", "how often the lifecycle worker applies the buckets' lifecycle rules (0 = never)")
	str(&c.IAMBootstrap, "iam-bootstrap", "JSON file of IAM groups, users, policies and access keys to create at start-up where absent")
	fs.BoolVar(&c.TrustForwardedFor, "trust-forwarded-for", c.TrustForwardedFor,
		"take aws:SourceIp and aws:SecureTransport from X-Forwarded-For / X-Forwarded-Proto: only behind a proxy that sets them (env "+envName("trust-forwarded-for")+")")
	names = append(names, "trust-forwarded-for")
	rate(&c.QoSReadCapacity, "qos-read-capacity", "read throughput the server can carry, e.g. 300MB/s: the scheduler paces reads at it and read reservations may sum to 95% of it (0 = reservations refused)")
	rate(&c.QoSWriteCapacity, "qos-write-capacity", "write throughput the server can carry, e.g. 150MB/s: the scheduler paces writes at it and write reservations may sum to 95% of it (0 = reservations refused)")
	rate(&c.QoSRequestCapacity, "qos-request-capacity", "requests per second the server can serve, e.g. 2000: the scheduler paces requests at it while a request-rate reservation is active, and those may sum to 95% of it (0 = request-rate reservations refused)")
	str(&c.MetricsToken, "metrics-token", "bearer token that scrapes /metrics on the S3 port (prefer the env variable: a flag shows in process listings)")
	fs.BoolVar(&c.MetricsPublic, "metrics-public", c.MetricsPublic, "serve /metrics on the S3 port to unsigned requests, without a token (env "+envName("metrics-public")+")")
	names = append(names, "metrics-public")
	num(&c.MetricsBuckets, "metrics-buckets", "most buckets whose usage /metrics reports, one series each (0 = none)")
	str(&c.AccessLog, "access-log", "access log: off (default), stderr, or a file path (reopened on SIGUSR1)")
	str(&c.AccessLogFormat, "access-log-format", "access log lines: json or text")
	fs.Float64Var(&c.AccessLogSample, "access-log-sample", c.AccessLogSample,
		"fraction of successful requests the access log writes, e.g. 0.01; errors (status >= 400) always are (env "+envName("access-log-sample")+")")
	names = append(names, "access-log-sample")
	dur(&c.BucketLogInterval, "bucket-log-interval", "how often server access logs (PutBucketLogging) are delivered to their target buckets")
	rate(&c.BucketLogSpoolMax, "bucket-log-spool-max", "most bytes of server access log records awaiting delivery kept on this gateway's disk, e.g. 1GiB; past it new records are dropped, and records of failing targets are kept within half of it (logged and counted)")
	str(&c.Fsync, "fsync", "always (acknowledged writes survive power loss) or never (unsafe, for throwaway data)")
	str(&c.ReplicateTo, "replicate-to", "stream the SQLite metadata to this S3 URL with Litestream, e.g. s3://backups/jog (its keys: the JOG_REPLICATE_ACCESS_KEY pair of variables, else the AWS SDK's chain)")
	str(&c.ReplicateEndpoint, "replicate-endpoint", "S3 endpoint of --replicate-to when not AWS, e.g. http://minio:9000 (path-style requests)")
	str(&c.ReplicateRegion, "replicate-region", "region of --replicate-to (empty: found from AWS, us-east-1 for another endpoint)")
	fs.BoolVar(&c.SQLiteCheckpoints, "sqlite-checkpoints", c.SQLiteCheckpoints,
		"run SQLite's WAL checkpoints in the server; false leaves them to Litestream run beside it (implied by --replicate-to) (env "+envName("sqlite-checkpoints")+")")
	names = append(names, "sqlite-checkpoints")
	fs.BoolVar(&c.Console, "console", c.Console, "serve the web console, at /console/ on --console-addr (env "+envName("console")+")")
	names = append(names, "console")
	str(&c.ConsoleAddr, "console-addr", "address of the web console's own listener, an origin apart from the objects'; empty: --addr's host at its port + 1 (:9001 beside :9000); "+ConsoleSame+": at /console/ on the S3 port instead")
	str(&c.ConsoleS3URL, "console-s3-url", "the S3 endpoint the console's share links, downloads and previews name, e.g. https://s3.example.com behind a proxy (empty: the console's host name at the S3 port)")
	dur(&c.ConsoleSession, "console-session", "how long a console sign-in lasts (15m to 36h)")
	names = c.bindNotify(fs, names)
	c.ReplicateAccessKey, c.ReplicateSecretKey = getenv(EnvReplicateAccessKey), getenv(EnvReplicateSecretKey)
	c.IAMKey = getenv(keyring.EnvVar)
	c.names = names
	for _, name := range names {
		env := envName(name)
		v := getenv(env)
		if v == "" {
			continue
		}
		f := fs.Lookup(name)
		if err := f.Value.Set(v); err != nil {
			c.envErrs = append(c.envErrs, fmt.Errorf("%s=%q: %v", env, v, err))
			continue
		}
		f.DefValue = HelpDefault(name, v) // -h shows the default in effect, never a secret
		if l, ok := f.Value.(*List); ok {
			l.fromEnv()
		}
	}
}

// Rate is a flag of bytes per second: a number with an optional unit and
// "/s" (units.ParseRate: "300MB/s", "300MiB").
type Rate int64

// String implements flag.Value.
func (r *Rate) String() string { return strconv.FormatInt(int64(*r), 10) }

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

// envName is the environment variable of flag name: JOG_DATA_DIR for
// data-dir.
func envName(name string) string {
	return "JOG_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
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
		errs = append(errs, fmt.Errorf("%s is set but no access key (--access-key / %s)", c.layers.Given("secret-key"), envName("access-key")))
	case c.AccessKey != "" && c.SecretKey == "":
		errs = append(errs, fmt.Errorf("%s is set but no secret key (--secret-key / %s)", c.layers.Given("access-key"), envName("secret-key")))
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
	if c.Fsync != "always" && c.Fsync != "never" {
		errs = append(errs, fmt.Errorf("--fsync %q: want always or never", c.Fsync))
	}
	if c.ReplicateTo != "" && MetaBackend(c.Meta) != "sqlite" {
		errs = append(errs, errors.New("--replicate-to replicates the SQLite metadata: back PostgreSQL up with its own tools"))
	}
	if c.ReplicateTo != "" && !strings.HasPrefix(c.ReplicateTo, "s3://") {
		errs = append(errs, fmt.Errorf("--replicate-to %q: want s3://bucket/path", c.ReplicateTo))
	}
	errs = append(errs, c.validateConsole()...)
	errs = append(errs, c.validateNotify()...)
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
