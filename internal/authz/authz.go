// Package authz is where every S3 request is authorized: given who makes
// it (the root credentials, an IAM user, or nobody: an anonymous request),
// the IAM actions its route requires, the resources they act on, the
// bucket's policy and the request's condition keys, it answers allow or
// deny with internal/iam/policy's evaluator, as AWS's policy evaluation
// logic does within one account, and for a deny why (Check.Denial: which
// kind of policy denied, explicitly or by allowing nothing).
//
// The root credentials are allowed everything without a look at any
// policy: their path builds no condition keys and reads no bucket policy
// (Principal.IsRoot, asked first by the caller).
//
// A caller prepares a Check once per request (Prepare: the condition keys
// are built there) and asks it for each action and resource the request
// needs (Check.Decide): a copy asks for the source too, DeleteObjects for
// each of its keys.
package authz

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
)

// Principal is who makes a request.
type Principal struct {
	Type policy.PrincipalType // policy.Root, policy.User, policy.AssumedRole or policy.Anonymous
	// User is the IAM user and its compiled identity policies when Type
	// is policy.User; the role and its policies for policy.AssumedRole.
	User *iam.Principal
	// Session, for temporary credentials (STS), is the session; nil for
	// long-term keys.
	Session *Session
}

// Session is what temporary credentials add to their principal.
type Session struct {
	// ARN is an assumed role's session ARN,
	// arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION ("" for a session of
	// a user or of the root).
	ARN string
	// UserID is aws:userid of a role session: ROLEID:SESSION.
	UserID string
	// Issued is when the credentials were issued (aws:TokenIssueTime).
	Issued time.Time
	// Policy is the session policy, which narrows the identity policies;
	// nil when there is none.
	Policy *policy.Compiled
	// Console is a session of the web console (sts.Session.Console).
	Console bool
}

// The principals that carry no user.
var (
	Root      = Principal{Type: policy.Root}
	Anonymous = Principal{Type: policy.Anonymous}
)

// IsRoot reports whether p is the root credentials, allowed everything.
func (p Principal) IsRoot() bool { return p.Type == policy.Root }

// Name is what logs call the principal: "root", "anonymous" or the user's
// ARN.
func (p Principal) Name() string {
	switch p.Type {
	case policy.Root:
		return "root"
	case policy.User:
		return p.User.ARN
	case policy.AssumedRole:
		return p.Session.ARN
	}
	return "anonymous"
}

// ARN returns the ARN of principal p in a's account: the root's
// (arn:aws:iam::ACCOUNT:root), a user's, a role session's; "" for an
// anonymous request.
func (a *Authorizer) ARN(p Principal) string {
	if p.Type == policy.Root {
		return a.rootARN
	}
	if p.Type == policy.Anonymous {
		return ""
	}
	return p.Name()
}

// Options tune an Authorizer.
type Options struct {
	// TrustForwardedFor makes aws:SourceIp the last address of the
	// X-Forwarded-For header (the one the proxy in front of JOG appended)
	// and aws:SecureTransport follow X-Forwarded-Proto. Only for a server
	// that every client reaches through such a proxy: otherwise a client
	// chooses its own source address.
	TrustForwardedFor bool
	// Now is the clock for aws:CurrentTime (time.Now when nil).
	Now func() time.Time
}

// Authorizer decides S3 requests for one account. It is safe for
// concurrent use.
type Authorizer struct {
	account string
	rootARN string
	opts    Options
	// now is aws:CurrentTime's value for the last second asked: requests
	// within one second share the text (RFC 3339 has no fraction).
	now atomic.Pointer[stamp]
}

type stamp struct {
	unix int64
	text string
}

// currentTime is t in RFC 3339 (UTC), aws:CurrentTime's form, formatted
// once a second.
func (a *Authorizer) currentTime(t time.Time) string {
	u := t.Unix()
	if s := a.now.Load(); s != nil && s.unix == u {
		return s.text
	}
	s := &stamp{unix: u, text: t.UTC().Format(time.RFC3339)}
	a.now.Store(s)
	return s.text
}

// New returns an Authorizer for the account (its 12-digit ID).
func New(account string, opts Options) *Authorizer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Authorizer{account: account, rootARN: "arn:aws:iam::" + account + ":root", opts: opts}
}

// Signature versions and authentication types, the values of
// s3:signatureversion and s3:authType.
const (
	SigV4 = "AWS4-HMAC-SHA256"
	SigV2 = "AWS"

	AuthHeader = "REST-HEADER"
	AuthQuery  = "REST-QUERY-STRING"
	AuthPOST   = "POST"
)

// Request is one S3 request to authorize.
type Request struct {
	Principal Principal
	HTTP      *http.Request
	// SignatureVersion (SigV4, SigV2) and AuthType (AuthHeader,
	// AuthQuery, AuthPOST) say how it was signed; empty for an anonymous
	// request.
	SignatureVersion string
	AuthType         string
	// List: the request lists a bucket, so prefix, delimiter and max-keys
	// of its query are s3:prefix, s3:delimiter and s3:max-keys.
	List bool
	// ExistingTags, when set, reads the tags of the object the request
	// names (none when it does not exist): s3:ExistingObjectTag/<key>. It
	// is called at most once, and only when a policy that applies names
	// such a key.
	ExistingTags Tags
}

// Tags reads an object's tags for s3:ExistingObjectTag/<key>. An
// interface, not a func: the caller's request can be one, where a
// closure would be an allocation on every request.
type Tags interface {
	ExistingTags() (map[string]string, error)
}

// TagsFunc is a func as Tags.
type TagsFunc func() (map[string]string, error)

// ExistingTags implements Tags.
func (f TagsFunc) ExistingTags() (map[string]string, error) { return f() }

// Check is a request prepared for decisions. Its condition keys are
// built when a decision first needs them: only the keys the policies that
// apply read (policy.Compiled.Keys), each once. It is not safe for
// concurrent use.
type Check struct {
	pr  policy.Request
	in  *Request
	a   *Authorizer
	set policy.Set
	// denial is the last decision that was not Allowed, for the answer
	// and the log.
	denial Denial
	tags   Tags
	err    error // reading the existing object's tags failed
	// filled are the policies whose keys are in pr.Context already.
	filled []*policy.Compiled
	// version: SetVersion decided s3:VersionId; the query's is not read.
	version bool
	query   url.Values // the request's query, parsed once
	// vals backs the single values of keys: one allocation, not one a key.
	vals []string
}

// BucketARN and ObjectARN are the resources of S3 operations.
func BucketARN(bucket string) string { return "arn:aws:s3:::" + bucket }

// ObjectARN is the ARN of an object.
func ObjectARN(bucket, key string) string { return "arn:aws:s3:::" + bucket + "/" + key }

// ServiceARN is the resource of an operation on no bucket (ListBuckets,
// s3:ListAllMyBuckets): identity policies grant it with "Resource": "*".
const ServiceARN = "*"

// Prepare readies a request for decisions. The condition keys are built
// later, as decisions need them.
func (a *Authorizer) Prepare(r *Request) *Check {
	c := checks.Get().(*Check)
	ctx, vals, filled := c.pr.Context, c.vals[:0], c.filled[:0]
	*c = Check{in: r, a: a, tags: r.ExistingTags, vals: vals, filled: filled}
	if ctx != nil {
		clear(ctx)
		c.pr.Context = ctx
	}
	c.pr.Type = r.Principal.Type
	c.pr.Account = a.account
	c.pr.Time = a.opts.Now()
	switch r.Principal.Type {
	case policy.Root:
		c.pr.ARN = a.rootARN
	case policy.User:
		c.pr.ARN = r.Principal.User.ARN
		c.set.Identity = r.Principal.User.Policies
		c.set.Boundary = r.Principal.User.Boundary
	case policy.AssumedRole:
		u, s := r.Principal.User, r.Principal.Session
		c.pr.ARN, c.pr.ParentARN = s.ARN, u.ARN
		c.set.Identity, c.set.Boundary = u.Policies, u.Boundary
	}
	if s := r.Principal.Session; s != nil {
		c.set.Session = s.Policy
	}
	return c
}

// checks are Checks released for reuse, with their context map, so that
// a request's authorization allocates next to nothing.
var checks = sync.Pool{New: func() any { return new(Check) }}

// Release gives c back for another request's Prepare: the caller must not
// use it, nor anything its decisions returned, after. A Check never
// released is simply collected.
func (c *Check) Release() {
	if c == nil {
		return
	}
	c.in, c.a, c.tags, c.query, c.err = nil, nil, nil, nil, nil
	c.set = policy.Set{}
	clear(c.filled)
	checks.Put(c)
}

// fill puts into the request's context the keys p reads for the
// action decided (c.pr.Action): those of its statements about the action
// alone. A policy whose keys are all in is not looked at again.
func (c *Check) fill(p *policy.Compiled) {
	if p == nil || len(p.Keys()) == 0 || slices.Contains(c.filled, p) {
		return
	}
	keys := p.KeysFor(c.pr.Action)
	if len(keys) == len(p.Keys()) {
		c.filled = append(c.filled, p)
	}
	if c.pr.Context == nil {
		c.pr.Context = make(policy.Context, len(p.Keys()))
	}
	for _, k := range keys {
		if _, ok := c.pr.Context[k]; !ok {
			c.key(k)
		}
	}
}

// SetVersion sets s3:VersionId for the decisions that follow (a
// DeleteObjects entry's version); "" removes it.
func (c *Check) SetVersion(v string) {
	c.version = true
	if c.pr.Context == nil {
		c.pr.Context = make(policy.Context, 1)
	}
	if v == "" {
		delete(c.pr.Context, "s3:versionid")
		return
	}
	c.pr.Context.Set("s3:VersionId", v)
}

// Decide decides action on resource under the bucket's policy (nil when
// it has none or the request names no bucket) and the allows of ACLs
// (internal/acl.Compile; nil ones are skipped): an ACL allows as another
// resource policy would, after the bucket policy and the identity
// policies denied nothing. The root is allowed without evaluation.
func (c *Check) Decide(action, resource string, bucketPolicy *policy.Compiled, acls ...*policy.Compiled) policy.Decision {
	if c.in.Principal.IsRoot() {
		return policy.Allowed
	}
	o := c.evaluate(action, resource, bucketPolicy)
	for _, a := range acls {
		if o.Decision != policy.ImplicitDeny {
			break
		}
		if a != nil {
			o = c.evaluate(action, resource, a)
		}
	}
	return c.decided(action, resource, o)
}

// decided records a decision other than Allowed on action and resource,
// and why, for the answer and the log (Denial).
func (c *Check) decided(action, resource string, o policy.Outcome) policy.Decision {
	if o.Decision != policy.Allowed {
		c.denial = Denial{Action: action, Resource: resource, Outcome: o}
	}
	return o.Decision
}

// evaluate decides action on resource under the request's policies and
// the resource policy rp, filling the keys they read first.
func (c *Check) evaluate(action, resource string, rp *policy.Compiled) policy.Outcome {
	c.pr.Action, c.pr.Resource = action, resource
	c.set.Resource = rp
	for _, p := range c.set.Identity {
		c.fill(p)
	}
	c.fill(c.set.Boundary)
	c.fill(c.set.Session)
	c.fill(rp)
	if c.err != nil {
		return policy.Outcome{Decision: policy.ImplicitDeny} // the caller answers Err
	}
	return policy.Explain(&c.pr, &c.set)
}

// DecideWith decides as Decide, but with s3:ExistingObjectTag/<key> the
// tags of another object than the request's, read by tags: a copy's
// source, whose action S3 decides on the source's tags. tags is called
// at most once, only when a policy that applies names such a key; the
// request's own existing-object tags do not apply to this decision and
// are kept (or left to be read) for the next.
func (c *Check) DecideWith(tags Tags, action, resource string, bucketPolicy *policy.Compiled, acls ...*policy.Compiled) policy.Decision {
	if c.in.Principal.IsRoot() {
		return policy.Allowed
	}
	own, ownLoad := c.takeExistingTags(), c.tags
	c.tags = tags
	c.unfillExistingTags()
	d := c.Decide(action, resource, bucketPolicy, acls...)
	c.takeExistingTags()
	c.unfillExistingTags()
	for k, v := range own {
		c.pr.Context[k] = v
	}
	c.tags = ownLoad
	return d
}

// DecideAssumeRole decides sts:AssumeRole on a role under its trust
// policy. Unlike Decide it asks the root too: JOG's root assumes only the
// roles whose trust policy allows it (one that trusts the account).
func (c *Check) DecideAssumeRole(roleARN string, trust *policy.Compiled) policy.Decision {
	return c.decided("sts:AssumeRole", roleARN, c.evaluate("sts:AssumeRole", roleARN, trust))
}

// takeExistingTags removes the s3:ExistingObjectTag/<key> keys from the
// request's context and returns them.
func (c *Check) takeExistingTags() map[string][]string {
	var out map[string][]string
	for k, v := range c.pr.Context {
		if strings.HasPrefix(k, existingTagPrefix) {
			if out == nil {
				out = map[string][]string{}
			}
			out[k] = v
			delete(c.pr.Context, k)
		}
	}
	return out
}

// unfillExistingTags makes the next decision fill again the keys of the
// policies that read s3:ExistingObjectTag (the keys in the context stay:
// only the tags, absent, are read), so that it reads the tags of the
// object it is about.
func (c *Check) unfillExistingTags() {
	c.filled = slices.DeleteFunc(c.filled, func(p *policy.Compiled) bool { return p.MentionsKeyPrefix(existingTagPrefix) })
}

const existingTagPrefix = "s3:existingobjecttag/"

// loadTags reads the existing object's tags into s3:ExistingObjectTag/<k>,
// once.
func (c *Check) loadTags() {
	load := c.tags
	c.tags = nil
	tags, err := load.ExistingTags()
	if err != nil {
		c.err = err
		return
	}
	for k, v := range tags {
		c.pr.Context.Add(existingTagPrefix+k, v)
	}
}

// Err is the failure to read what a decision needed (the object's tags):
// the decision was a denial, and the caller answers this error instead.
func (c *Check) Err() error { return c.err }

// Denied is the action of the last decision that was not Allowed ("" when
// none was), for the log.
func (c *Check) Denied() string { return c.denial.Action }

// Denial is the last decision that was not Allowed, with who asked (the
// zero Denial, but for Principal, when none was).
func (c *Check) Denial() Denial {
	d := c.denial
	d.Principal = c.a.ARN(c.in.Principal)
	return d
}
