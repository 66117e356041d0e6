package config

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/kms"
)

// setting is a row of the settings table: one setting of jog server. The
// table drives the flags (BindFlags), the JOG_* variables, the config
// file's keys (ApplyFile), what is masked (-h, --print-config, the
// warning about secrets in argv) and the reference in docs/OPERATIONS.md.
type setting struct {
	// name is the flag (--name) and the config file's key; "" for a
	// setting read from its variable only, so that it never shows in a
	// process listing.
	name string
	// env is the variable; "" means envName(name), JOG_DATA_DIR for
	// data-dir.
	env string
	// ptr is the Config's field: *string, *int, *bool, *float64,
	// *time.Duration, or a flag.Value.
	ptr   any
	usage string
	// secret: -h, --print-config and the docs never show the value, and
	// a server given it on its command line warns.
	secret bool
}

// variable is the setting's environment variable.
func (s setting) variable() string {
	if s.env != "" {
		return s.env
	}
	return envName(s.name)
}

// isKey reports whether the setting is a key of the config file: it has
// a flag, and it is not the flag naming the file.
func (s setting) isKey() bool { return s.name != "" && s.name != fileFlag }

// settings is the table of c's settings, in the order -h, --print-config
// and the docs list them; each row points into c.
func (c *Config) settings() []setting {
	return append([]setting{
		{name: fileFlag, ptr: &c.ConfigFile, usage: "TOML file of settings, keys named as these flags (data-dir = \"/srv/jog\"); flags and JOG_* variables override it"},
		{name: "addr", ptr: &c.Addr, usage: "listen address"},
		{name: "data-dir", ptr: &c.DataDir, usage: "directory for metadata and object data"},
		{name: "meta", ptr: &c.Meta, usage: metaUsage},
		{name: "access-key", ptr: &c.AccessKey, usage: "S3 access key ID (generated on first start when empty)"},
		{name: "secret-key", ptr: &c.SecretKey, usage: "S3 secret access key", secret: true},
		{name: "region", ptr: &c.Region, usage: "region reported to clients and required in signatures"},
		{name: "domain", ptr: &c.Domain, usage: "base domain for virtual-hosted-style requests (<bucket>.<domain>)"},
		{name: "log-level", ptr: &c.LogLevel, usage: "debug, info, warn or error"},
		{name: "log-format", ptr: &c.LogFormat, usage: "text or json"},
		{name: "max-requests", ptr: &c.MaxRequests, usage: "S3 requests served at once; more get 503 SlowDown (0 = no bound)"},
		{name: "anonymous-share", ptr: &c.AnonymousShare, usage: "fraction of --max-requests that requests not authenticated (yet) may hold at once (anonymous ones, form uploads before their signature is checked, console sign-ins, IAM and STS calls while their forms are read); more get 503 SlowDown"},
		{name: "body-idle-timeout", ptr: &c.BodyIdleTimeout, usage: "longest wait for a request body's next bytes; longer gets 400 RequestTimeout and nothing stored (0 = no limit, nor --body-min-rate)"},
		{name: "body-min-rate", ptr: &c.BodyMinRate, usage: "least average rate of a request body once --body-idle-timeout has passed, e.g. 1KiB/s; slower gets 400 RequestTimeout (0 = none)"},
		{name: "inline-max", ptr: &c.InlineMax, usage: "objects up to this many bytes are stored in the metadata database, not in files (0 = never)"},
		{name: "pack-max", ptr: &c.PackMax, usage: "blobs up to this many bytes are appended to shared pack files, not written as files of their own (0 = never)"},
		{name: "tls-cert", ptr: &c.TLSCert, usage: "PEM certificate file: serve HTTPS (with --tls-key)"},
		{name: "tls-key", ptr: &c.TLSKey, usage: "PEM private key file for --tls-cert"},
		{name: "debug-addr", ptr: &c.DebugAddr, usage: "serve Go profiles (/debug/pprof/) on this address, e.g. 127.0.0.1:6060; unauthenticated, keep it private"},
		{name: "lifecycle-day", ptr: &c.LifecycleDay, usage: "length of a day in lifecycle rules (shorten it only to test rules)"},
		{name: "lifecycle-interval", ptr: &c.LifecycleInterval, usage: "how often the lifecycle worker applies the buckets' lifecycle rules (0 = never)"},
		{name: "iam-bootstrap", ptr: &c.IAMBootstrap, usage: "JSON file of IAM groups, users, policies and access keys to create at start-up where absent"},
		{name: "trust-forwarded-for", ptr: &c.TrustForwardedFor, usage: "take aws:SourceIp and aws:SecureTransport from X-Forwarded-For / X-Forwarded-Proto: only behind a proxy that sets them"},
		{name: "default-object-ownership", ptr: &c.DefaultObjectOwnership, usage: "Object Ownership of a bucket created without an x-amz-object-ownership header: BucketOwnerEnforced (ACLs disabled, S3's default since April 2023), BucketOwnerPreferred or ObjectWriter (ACLs enabled, for tools that set them)"},
		{name: "allow-insecure-sse-c", ptr: &c.AllowInsecureSSEC, usage: "accept SSE-C keys over plain HTTP (the key crosses the network in the clear): for tests on loopback only; otherwise refused with 400 InvalidRequest, as S3 does"},
		{name: "qos-read-capacity", ptr: &c.QoSReadCapacity, usage: "read throughput the server can carry, e.g. 300MB/s: the scheduler paces reads at it and read reservations may sum to 95% of it (0 = reservations refused)"},
		{name: "qos-write-capacity", ptr: &c.QoSWriteCapacity, usage: "write throughput the server can carry, e.g. 150MB/s: the scheduler paces writes at it and write reservations may sum to 95% of it (0 = reservations refused)"},
		{name: "qos-request-capacity", ptr: &c.QoSRequestCapacity, usage: "requests per second the server can serve, e.g. 2000: the scheduler paces requests at it while a request-rate reservation is active, and those may sum to 95% of it (0 = request-rate reservations refused)"},
		{name: "metrics-token", ptr: &c.MetricsToken, usage: "bearer token that scrapes /metrics on the S3 port (prefer the env variable: a flag shows in process listings)", secret: true},
		{name: "metrics-public", ptr: &c.MetricsPublic, usage: "serve /metrics on the S3 port to unsigned requests, without a token"},
		{name: "metrics-buckets", ptr: &c.MetricsBuckets, usage: "most buckets whose usage /metrics reports, one series each (0 = none)"},
		{name: "access-log", ptr: &c.AccessLog, usage: "access log: off (default), stderr, or a file path (reopened on SIGUSR1)"},
		{name: "access-log-format", ptr: &c.AccessLogFormat, usage: "access log lines: json or text"},
		{name: "access-log-sample", ptr: &c.AccessLogSample, usage: "fraction of successful requests the access log writes, e.g. 0.01; errors (status >= 400) always are"},
		{name: "bucket-log-interval", ptr: &c.BucketLogInterval, usage: "how often server access logs (PutBucketLogging) are delivered to their target buckets"},
		{name: "bucket-log-spool-max", ptr: &c.BucketLogSpoolMax, usage: "most bytes of server access log records awaiting delivery kept on this gateway's disk, e.g. 1GiB; past it new records are dropped, and records of failing targets are kept within half of it (logged and counted)"},
		{name: "fsync", ptr: (*string)(&c.Fsync), usage: "always (acknowledged writes survive power loss) or never (unsafe, for throwaway data)"},
		{name: "replicate-to", ptr: &c.Replicate.URL, usage: "stream the SQLite metadata to this S3 URL with Litestream, e.g. s3://backups/jog (its keys: the JOG_REPLICATE_ACCESS_KEY pair of variables, else the AWS SDK's chain)"},
		{name: "replicate-endpoint", ptr: &c.Replicate.Endpoint, usage: "S3 endpoint of --replicate-to when not AWS, e.g. http://minio:9000 (path-style requests)"},
		{name: "replicate-region", ptr: &c.Replicate.Region, usage: "region of --replicate-to (empty: found from AWS, us-east-1 for another endpoint)"},
		{env: EnvReplicateAccessKey, ptr: &c.Replicate.AccessKey},
		{env: EnvReplicateSecretKey, ptr: &c.Replicate.SecretKey, secret: true},
		{env: keyring.EnvVar, ptr: &c.IAMKey, secret: true},
		{env: kms.MasterKeyEnv, ptr: &c.SSEKey, secret: true},
		{name: "sqlite-checkpoints", ptr: &c.SQLiteCheckpoints, usage: "run SQLite's WAL checkpoints in the server; false leaves them to Litestream run beside it (implied by --replicate-to)"},
		{name: "console", ptr: &c.Console, usage: "serve the web console, at /console/ on --console-addr"},
		{name: "console-addr", ptr: &c.ConsoleAddr, usage: "address of the web console's own listener, an origin apart from the objects'; empty: --addr's host at its port + 1 (:9001 beside :9000); " + ConsoleSame + ": at /console/ on the S3 port instead"},
		{name: "console-s3-url", ptr: &c.ConsoleS3URL, usage: "the S3 endpoint the console's share links, downloads and previews name, e.g. https://s3.example.com behind a proxy (empty: the console's host name at the S3 port)"},
		{name: "console-session", ptr: &c.ConsoleSession, usage: "how long a console sign-in lasts (15m to 36h)"},
	}, slices.Concat(c.Notify.settings(), c.Replication.settings(), kmipSettings(&c.KMIP))...)
}

// The replica's keys (Config.Replicate.AccessKey, SecretKey) come
// from these variables only: no flag, so that they never show in a
// process listing.
const (
	EnvReplicateAccessKey = "JOG_REPLICATE_ACCESS_KEY"
	EnvReplicateSecretKey = "JOG_REPLICATE_SECRET_KEY"
)

// BindFlags registers every setting of the table on fs. Each flag's
// default comes from its JOG_* environment variable when set, else from
// c; an environment value the flag cannot parse is reported by Validate.
// A setting without a flag is read from its variable only.
func (c *Config) BindFlags(fs *flag.FlagSet, getenv func(string) string) {
	c.table = c.settings()
	c.Replication.getenv = getenv
	for _, s := range c.table {
		if s.name == "" {
			*s.ptr.(*string) = getenv(s.variable())
			continue
		}
		usage := s.usage + " (env " + s.variable() + ")"
		switch p := s.ptr.(type) {
		case *string:
			fs.StringVar(p, s.name, *p, usage)
		case *int:
			fs.IntVar(p, s.name, *p, usage)
		case *bool:
			fs.BoolVar(p, s.name, *p, usage)
		case *float64:
			fs.Float64Var(p, s.name, *p, usage)
		case *time.Duration:
			fs.DurationVar(p, s.name, *p, usage)
		case flag.Value:
			fs.Var(p, s.name, usage)
		default:
			panic(fmt.Sprintf("config: setting %s: unsupported field type %T", s.name, s.ptr))
		}
	}
	for _, s := range c.table {
		v := getenv(s.variable())
		if s.name == "" || v == "" {
			continue
		}
		f := fs.Lookup(s.name)
		if err := f.Value.Set(v); err != nil {
			c.envErrs = append(c.envErrs, fmt.Errorf("%s=%q: %v", s.variable(), v, err))
			continue
		}
		f.DefValue = HelpDefault(v, s.secret) // -h shows the default in effect, never a secret
		if l, ok := s.ptr.(*List); ok {
			l.fromEnv()
		}
	}
}

// row is the table's row of flag name, if any.
func row(table []setting, name string) (setting, bool) {
	for _, s := range table {
		if s.name == name && name != "" {
			return s, true
		}
	}
	return setting{}, false
}

// envName is the environment variable of flag name: JOG_DATA_DIR for
// data-dir.
func envName(name string) string {
	return "JOG_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// EnvName is the variable of jog server's setting --name (JOG_DATA_DIR for
// data-dir): other commands read the server's variables by it.
func EnvName(name string) string { return envName(name) }

// SecretVars are the environment variables holding a secret of jog
// server: the table's secret settings', with a flag or without.
func SecretVars() []string {
	var c Config
	var vars []string
	for _, s := range c.settings() {
		if s.secret {
			vars = append(vars, s.variable())
		}
	}
	return vars
}

// HelpDefault is what -h shows as the default v of a flag, of jog server
// or of any other command: "(set)" for a secret, v with any password of a
// connection string masked (RedactMeta) otherwise.
func HelpDefault(v string, secret bool) string {
	if secret && v != "" {
		return "(set)"
	}
	return RedactMeta(v)
}
