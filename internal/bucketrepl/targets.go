package bucketrepl

import (
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"

	"github.com/jogstore/jog/internal/iam/keyring"
)

// Target is a remote S3 endpoint the operator lets buckets replicate to
// (--replication-target NAME=URL, docs/adr/0030-replication-targets.md).
type Target struct {
	// Name is how rules and the operator name the target: lower-case
	// letters, digits and '-'.
	Name string
	// Endpoint is the S3 endpoint, scheme://host[:port]; requests to it
	// are path-style.
	Endpoint string
	// Bucket is the one bucket the target serves, when its URL names one;
	// "" serves any bucket of the endpoint.
	Bucket string
	// AccessKey and SecretKey sign requests to the endpoint; no printed
	// or logged form of SecretKey shows it (keyring.Secret).
	AccessKey string
	SecretKey keyring.Secret
}

// String is the target as the operator wrote it, NAME=URL: no credentials.
func (t Target) String() string { return t.Name + "=" + t.URL() }

// LogValue logs the target as String does: never its keys, whatever the
// log's format (a JSON handler would marshal every field).
func (t Target) LogValue() slog.Value { return slog.StringValue(t.String()) }

// LogValue logs the targets as their Strings.
func (ts Targets) LogValue() slog.Value {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return slog.StringValue(strings.Join(s, " "))
}

// URL is the target's URL: the endpoint, and the bucket if it names one.
func (t Target) URL() string {
	if t.Bucket == "" {
		return t.Endpoint
	}
	return t.Endpoint + "/" + t.Bucket
}

var (
	targetName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
)

// ParseTarget reads a NAME=URL entry: URL is http(s)://host[:port], with
// /BUCKET when the target serves that bucket alone. It holds no
// credentials: they come apart (config: the environment or the file).
func ParseTarget(spec string) (Target, error) {
	name, raw, ok := strings.Cut(spec, "=")
	if !ok || !targetName.MatchString(name) {
		return Target{}, fmt.Errorf("replication target %q: want NAME=URL, NAME of lower-case letters, digits and '-' (at most 63)", spec)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Target{}, fmt.Errorf("replication target %s: URL %q: want http(s)://host[:port][/BUCKET]", name, raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return Target{}, fmt.Errorf("replication target %s: URL %q: no user, query or fragment (credentials come from JOG_REPLICATION_<NAME>_ACCESS_KEY and _SECRET_KEY)", name, raw)
	}
	t := Target{Name: name, Endpoint: u.Scheme + "://" + u.Host, Bucket: strings.Trim(u.Path, "/")}
	if t.Bucket != "" && !bucketName.MatchString(t.Bucket) {
		return Target{}, fmt.Errorf("replication target %s: URL %q: path %q is not one bucket name", name, raw, u.Path)
	}
	return t, nil
}

// Targets are the configured targets, in the order given.
type Targets []Target

// ParseTargets reads NAME=URL entries (ParseTarget); names are unique.
func ParseTargets(specs []string) (Targets, error) {
	ts := make(Targets, 0, len(specs))
	for _, s := range specs {
		t, err := ParseTarget(s)
		if err != nil {
			return nil, err
		}
		if _, dup := ts.Named(t.Name); dup {
			return nil, fmt.Errorf("replication target %s given twice", t.Name)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// Named returns the target called name.
func (ts Targets) Named(name string) (Target, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Target{}, false
}

// Bind resolves each rule's Destination Bucket to a target and a bucket
// on it (Resolve), recording them in the rule; a destination no target
// serves refuses the configuration (400 InvalidRequest naming the
// targets).
func (ts Targets) Bind(c *Config) error {
	for i := range c.Rules {
		d := &c.Rules[i].Destination
		t, bucket, err := ts.Resolve(d.Bucket)
		if err != nil {
			return err
		}
		d.Target, d.TargetBucket = t.Name, bucket
	}
	return nil
}

// Resolve finds the target serving a Destination Bucket ARN, and the
// bucket on it. arn:jog:replication::TARGET:BUCKET names the target.
// arn:aws:s3:::BUCKET is served by the one target whose URL names BUCKET,
// else by the one target whose URL names no bucket; two candidates are
// ambiguous, and refused.
func (ts Targets) Resolve(arn string) (Target, string, error) {
	name, bucket, err := parseARN(arn)
	if err != nil {
		return Target{}, "", err
	}
	if name != "" {
		t, ok := ts.Named(name)
		switch {
		case !ok:
			return Target{}, "", invalidRequest("Destination %s names replication target %q, which this server does not have: %s.", arn, name, ts.describe())
		case t.Bucket != "" && t.Bucket != bucket:
			return Target{}, "", invalidRequest("Destination %s: replication target %s serves bucket %s alone.", arn, name, t.Bucket)
		}
		return t, bucket, nil
	}
	for _, serves := range []string{bucket, ""} {
		var found []Target
		for _, t := range ts {
			if t.Bucket == serves {
				found = append(found, t)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], bucket, nil
		}
		return Target{}, "", invalidRequest("Destination %s is served by more than one replication target (%s): name one as arn:jog:replication::TARGET:%s.", arn, Targets(found).describe(), bucket)
	}
	return Target{}, "", invalidRequest("Destination %s is served by no replication target: %s.", arn, ts.describe())
}

// describe lists the targets for a refusal: names and URLs, never keys.
func (ts Targets) describe() string {
	if len(ts) == 0 {
		return "this server has no replication targets (jog server --replication-target NAME=URL)"
	}
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.Name + " (" + t.URL() + ")"
	}
	return "the configured replication targets are " + strings.Join(s, ", ")
}

// The two forms of a Destination Bucket.
const (
	awsARNPrefix = "arn:aws:s3:::"
	jogARNPrefix = "arn:jog:replication::"
)

// parseARN reads a Destination Bucket: the target it names ("" for S3's
// form) and the bucket.
func parseARN(arn string) (target, bucket string, err error) {
	switch {
	case strings.HasPrefix(arn, awsARNPrefix):
		bucket = arn[len(awsARNPrefix):]
	case strings.HasPrefix(arn, jogARNPrefix):
		target, bucket, _ = strings.Cut(arn[len(jogARNPrefix):], ":")
		if !targetName.MatchString(target) {
			bucket = ""
		}
	}
	if !bucketName.MatchString(bucket) {
		return "", "", invalidArgument("Invalid bucket ARN %q: want arn:aws:s3:::BUCKET, or arn:jog:replication::TARGET:BUCKET to name a replication target.", arn)
	}
	return target, bucket, nil
}
