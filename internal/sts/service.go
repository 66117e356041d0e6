// Package sts issues and resolves temporary credentials, as AWS STS does:
// AssumeRole (a session of a role whose trust policy allows the caller,
// narrowed by an optional session policy) and GetSessionToken (a session
// of the caller itself). Sessions are stateless: the session token is the
// session sealed under the server key (token.go), opened again when a
// request presents it; nothing is written per session.
//
//	service.go  Service: AssumeRole, GetSessionToken, CallerIdentity
//	token.go    Session, Seal and Open
//	keys.go     Keys: the root's, IAM users' and temporary credentials as
//	            one sigv4.SessionCredentials, and the principal of each
//
// The query API (internal/stsapi) calls it; the S3 and IAM edges verify
// signatures against Keys and authorize the principal it gives.
package sts

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// Errors of STS's API this package finds (the API maps them, with iam's
// ErrValidation and ErrMalformedPolicyDocument, to STS's codes); each is
// returned as a *meta.IAMError carrying STS's message.
var (
	// ErrAccessDenied: the caller may not assume the role (or it does not
	// exist), or may not call the action with its credentials.
	ErrAccessDenied = errors.New("AccessDenied")
	// ErrPackedPolicyTooLarge: the session policies are over STS's quota.
	ErrPackedPolicyTooLarge = errors.New("PackedPolicyTooLarge")
	// ErrRevoked: a session whose role or user was deleted (or replaced by
	// another of its name): its requests are denied.
	ErrRevoked = errors.New("the session's role or user no longer exists")
)

// Durations as STS bounds them.
const (
	MinDuration            = 15 * time.Minute
	DefaultRoleDuration    = time.Hour
	ChainedMaxDuration     = time.Hour // role chaining: a role session assuming a role
	DefaultSessionDuration = 12 * time.Hour
	MaxSessionDuration     = 36 * time.Hour
	RootMaxSessionDuration = time.Hour
	MaxPolicyARNs          = 10
	maxPackedPolicy        = policy.MaxSessionPolicy
	prefixTemporaryKey     = "ASIA"
)

// Options tune a Service.
type Options struct {
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Service issues temporary credentials for the account of an iam.Service.
// It is safe for concurrent use.
type Service struct {
	iam  *iam.Service
	keys *keyring.Keyring
	now  func() time.Time
}

// New returns a Service sealing its tokens with keys (the server key).
func New(svc *iam.Service, keys *keyring.Keyring, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{iam: svc, keys: keys, now: opts.Now}
}

// Credentials are temporary credentials.
type Credentials struct {
	AccessKeyID  string
	Secret       keyring.Secret
	SessionToken string
	Expiration   time.Time
}

// AssumeRoleInput is what AssumeRole takes.
type AssumeRoleInput struct {
	RoleARN     string
	SessionName string
	Duration    time.Duration // 0: an hour
	Policy      string        // an inline session policy; "" for none
	PolicyARNs  []string      // managed session policies
}

// AssumeRoleOutput is what AssumeRole returns.
type AssumeRoleOutput struct {
	Credentials
	AssumedRoleID    string // ROLEID:SESSION
	ARN              string // arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION
	PackedPolicySize int    // the session policies' share of their quota, in percent
}

var sessionNameRE = regexp.MustCompile(`^[\w+=,.@-]*$`)

func validation(format string, args ...any) error {
	return meta.IAMErrorf(iam.ErrValidation, format, args...)
}

// AssumeRole issues the credentials of a session of the role in.RoleARN
// to caller, whose request check holds (authz.Check): the role's trust
// policy must allow the caller sts:AssumeRole, and when it trusts the
// account rather than naming the caller, the caller's identity policies
// must allow it too (AWS's logic in one account). The root credentials
// may assume a role that trusts the account. A role session may assume
// another role (role chaining) for at most an hour.
func (s *Service) AssumeRole(ctx context.Context, caller authz.Principal, check *authz.Check, in AssumeRoleInput) (AssumeRoleOutput, error) {
	roleName, err := s.checkAssumeRole(caller, &in)
	if err != nil {
		return AssumeRoleOutput{}, err
	}
	denied := meta.IAMErrorf(ErrAccessDenied, "User: %s is not authorized to perform: sts:AssumeRole on resource: %s", CallerARN(s.iam.Account(), caller), in.RoleARN)
	if roleName == "" {
		return AssumeRoleOutput{}, denied // a role of another account
	}
	role, err := s.iam.GetRole(ctx, roleName)
	if errors.Is(err, meta.ErrNoSuchEntity) || err == nil && role.ARN != in.RoleARN {
		return AssumeRoleOutput{}, denied // AWS does not say whether a role exists
	}
	if err != nil {
		return AssumeRoleOutput{}, err
	}
	trust, err := policy.ParseCompiled(role.TrustPolicy, policy.Trust)
	if err != nil {
		return AssumeRoleOutput{}, fmt.Errorf("sts: the trust policy of role %s does not compile: %w", role.Name, err)
	}
	if check.DecideAssumeRole(role.ARN, trust) != policy.Allowed {
		return AssumeRoleOutput{}, denied
	}
	if in.Duration > role.MaxSessionDuration {
		return AssumeRoleOutput{}, validation("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	}
	if _, err := s.iam.SessionPolicy(ctx, in.Policy, in.PolicyARNs); err != nil {
		return AssumeRoleOutput{}, err
	}
	sess := s.session(KindRole, in.Duration)
	sess.Name, sess.ID, sess.SessionName = role.Name, role.ID, in.SessionName
	sess.Policy, sess.PolicyARNs = in.Policy, in.PolicyARNs
	return AssumeRoleOutput{
		Credentials:      s.credentials(sess),
		AssumedRoleID:    role.ID + ":" + in.SessionName,
		ARN:              SessionARN(s.iam.Account(), role.Name, in.SessionName),
		PackedPolicySize: packedSize(in.Policy, in.PolicyARNs),
	}, nil
}

// checkAssumeRole validates AssumeRole's parameters as STS does, filling
// in the default duration, and returns the role's name ("" for an ARN of
// another account).
func (s *Service) checkAssumeRole(caller authz.Principal, in *AssumeRoleInput) (string, error) {
	if n := len(in.RoleARN); n < 20 || n > 2048 {
		return "", validation("1 validation error detected: Value '%s' at 'roleArn' failed to satisfy constraint: Member must have length between 20 and 2048", in.RoleARN)
	}
	switch n := len(in.SessionName); {
	case n < 2 || n > 64:
		return "", validation("1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must have length between 2 and 64", in.SessionName)
	case !sessionNameRE.MatchString(in.SessionName):
		return "", validation("1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", in.SessionName)
	}
	chained := caller.Type == policy.AssumedRole
	switch {
	case in.Duration == 0:
		in.Duration = DefaultRoleDuration
	case in.Duration < MinDuration || in.Duration > iam.MaxMaxSession:
		return "", validation("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value between %d and %d",
			int64(in.Duration/time.Second), int64(MinDuration/time.Second), int64(iam.MaxMaxSession/time.Second))
	case chained && in.Duration > ChainedMaxDuration:
		return "", validation("The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
	}
	if err := checkSessionPolicy(in.Policy, in.PolicyARNs); err != nil {
		return "", err
	}
	prefix := "arn:aws:iam::" + s.iam.Account() + ":role/"
	if !strings.HasPrefix(in.RoleARN, "arn:aws:iam::") || !strings.Contains(in.RoleARN, ":role/") {
		return "", validation("%s is invalid", in.RoleARN)
	}
	if !strings.HasPrefix(in.RoleARN, prefix) {
		return "", nil
	}
	path := in.RoleARN[len(prefix)-1:] // "/path/name"
	return path[strings.LastIndexByte(path, '/')+1:], nil
}

// checkSessionPolicy applies STS's quotas to session policies: the inline
// document's length, the number of managed ones, their packed size.
func checkSessionPolicy(doc string, arns []string) error {
	if len(doc) > maxPackedPolicy {
		return validation("1 validation error detected: Value at 'policy' failed to satisfy constraint: Member must have length less than or equal to %d", maxPackedPolicy)
	}
	if len(arns) > MaxPolicyARNs {
		return validation("1 validation error detected: Value at 'policyArns' failed to satisfy constraint: Member must have length less than or equal to %d", MaxPolicyARNs)
	}
	if n := packedSize(doc, arns); n > 100 {
		return meta.IAMErrorf(ErrPackedPolicyTooLarge, "Packed policy consumes %d%% of allotted space, please use smaller policy.", n)
	}
	return nil
}

// packedSize is the session policies' share of their quota, in percent:
// the inline document's characters other than white space and the
// managed policies' ARNs, against MaxSessionPolicy (STS compresses them
// into a binary form of its own; JOG keeps the text and counts it so).
func packedSize(doc string, arns []string) int {
	n := policy.Size([]byte(doc))
	for _, a := range arns {
		n += len(a)
	}
	return (n*100 + maxPackedPolicy - 1) / maxPackedPolicy
}

// GetSessionToken issues temporary credentials of the caller itself: an
// IAM user's keep its policies; the root's are the root's. Only long-term
// keys may ask (AWS refuses session credentials). duration 0 is 12 hours
// (an hour for the root); the root's are at most an hour.
func (s *Service) GetSessionToken(caller authz.Principal, duration time.Duration) (Credentials, error) {
	if duration != 0 && (duration < MinDuration || duration > MaxSessionDuration) {
		return Credentials{}, validation("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value between %d and %d",
			int64(duration/time.Second), int64(MinDuration/time.Second), int64(MaxSessionDuration/time.Second))
	}
	if caller.Session != nil || caller.Type != policy.User && caller.Type != policy.Root {
		return Credentials{}, meta.IAMErrorf(ErrAccessDenied, "Cannot call GetSessionToken with session credentials")
	}
	if duration == 0 {
		duration = DefaultSessionDuration
	}
	kind := KindUser
	if caller.Type == policy.Root {
		kind, duration = KindRoot, min(duration, RootMaxSessionDuration)
	}
	sess := s.session(kind, duration)
	if kind == KindUser {
		sess.Name, sess.ID = caller.User.UserName, caller.User.UserID
	}
	return s.credentials(sess), nil
}

// session is a new session of kind lasting d, with fresh keys.
func (s *Service) session(kind Kind, d time.Duration) *Session {
	now := s.now().UTC().Truncate(time.Second)
	id, secret := iam.NewKeyPair(prefixTemporaryKey)
	return &Session{AccessKeyID: id, Secret: secret, Issued: now, Expires: now.Add(d), Kind: kind}
}

func (s *Service) credentials(sess *Session) Credentials {
	return Credentials{AccessKeyID: sess.AccessKeyID, Secret: sess.Secret, SessionToken: Seal(s.keys, sess), Expiration: sess.Expires}
}

// Identity is what GetCallerIdentity answers.
type Identity struct {
	Account string
	ARN     string
	UserID  string
}

// CallerIdentity describes caller: its account, ARN and unique ID (for a
// role session ROLEID:SESSION).
func (s *Service) CallerIdentity(caller authz.Principal) Identity {
	acct := s.iam.Account()
	id := Identity{Account: acct, ARN: CallerARN(acct, caller), UserID: acct}
	switch caller.Type {
	case policy.User:
		id.UserID = caller.User.UserID
	case policy.AssumedRole:
		id.UserID = caller.Session.UserID
	}
	return id
}

// CallerARN is the ARN of a principal: the root's, a user's, a role
// session's.
func CallerARN(account string, p authz.Principal) string {
	switch p.Type {
	case policy.User:
		return p.User.ARN
	case policy.AssumedRole:
		return p.Session.ARN
	}
	return "arn:aws:iam::" + account + ":root"
}

// SessionARN is a role session's ARN.
func SessionARN(account, role, session string) string {
	return "arn:aws:sts::" + account + ":assumed-role/" + role + "/" + session
}

// Account returns the account ID the sessions belong to.
func (s *Service) Account() string { return s.iam.Account() }
