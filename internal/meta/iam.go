package meta

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"time"
)

// IAMStore keeps the account's identities and their policies: users and
// their access keys, groups and their members, roles, managed policies,
// inline policies and attachments. It belongs to no bucket. Documents are
// opaque here: the caller (internal/iam) validates them before storing, and
// a secret access key arrives already sealed (encrypted) and leaves so.
//
// Names of users, groups, roles and managed policies, and of inline
// policies within their entity, are unique regardless of case, as IAM
// has them ("Alice" and "alice" are one user); a lookup by name ignores
// case too and returns the name as it was created. Listings are ordered
// by name, case-insensitively.
//
// Errors: ErrNoSuchEntity for a named thing that does not exist (the user
// a key is created for, the policy an ARN names, …), ErrEntityAlreadyExists,
// ErrLimitExceeded (a third access key, an eleventh attachment),
// ErrDeleteConflict (deleting what is still in use, as IAM refuses it).
//
// Every method that changes something the authorizer reads (entities,
// keys, policies, memberships, attachments) advances IAMGeneration in the
// same transaction.
type IAMStore interface {
	// IAMAccount returns the account's 12-digit ID, chosen once when the
	// store was created and the same ever after; it names the account in
	// every ARN.
	IAMAccount(ctx context.Context) (string, error)
	// IAMGeneration is a change counter: it grows with every committed IAM
	// change, in any process sharing the store. A cache of what the
	// authorizer derives from the store (secrets, compiled policies)
	// remembers the generation it read before loading, and drops
	// everything once IAMGeneration returns another number; a gateway
	// polls it (one small read) before trusting its cache, at most as
	// often as it can afford, so a change made through any gateway is seen
	// by all within that interval. Its value means nothing but equality.
	IAMGeneration(ctx context.Context) (int64, error)

	// CreateEntity creates a user, group or role (e.Kind): its Name, Path,
	// ID, ARN and Created are the caller's; a role's TrustPolicy,
	// MaxSessionDuration and Description too; a user's or role's Boundary
	// ("" none) names a managed policy (ErrNoSuchEntity without it).
	CreateEntity(ctx context.Context, e IAMEntity) error
	GetEntity(ctx context.Context, kind EntityKind, name string) (IAMEntity, error)
	ListEntities(ctx context.Context, kind EntityKind, opts IAMListOptions) ([]IAMEntity, error)
	// DeleteEntity deletes a user, group or role: ErrDeleteConflict while a
	// user has access keys or groups, a group has members, or any of them
	// has inline or attached policies.
	DeleteEntity(ctx context.Context, kind EntityKind, name string) error

	// CreateAccessKey adds k to its user (ErrNoSuchEntity without it):
	// ErrLimitExceeded when the user has MaxAccessKeys already.
	CreateAccessKey(ctx context.Context, k AccessKey) error
	// GetAccessKey returns the key with access key ID id, whichever user
	// it belongs to.
	GetAccessKey(ctx context.Context, id string) (AccessKey, error)
	// ListAccessKeys returns a user's keys, oldest first.
	ListAccessKeys(ctx context.Context, user string) ([]AccessKey, error)
	// SetAccessKeyStatus sets the status (AccessKeyActive or
	// AccessKeyInactive) of user's key id.
	SetAccessKeyStatus(ctx context.Context, user, id, status string) error
	// SetAccessKeyLastUsed records when key id last signed a request. It
	// does not advance IAMGeneration: it changes no decision.
	SetAccessKeyLastUsed(ctx context.Context, id string, at time.Time) error
	DeleteAccessKey(ctx context.Context, user, id string) error

	// AddGroupMember adds user to group (already there is fine).
	AddGroupMember(ctx context.Context, group, user string) error
	// RemoveGroupMember removes user from group: ErrNoSuchEntity when
	// either does not exist or the user is not a member.
	RemoveGroupMember(ctx context.Context, group, user string) error
	// GroupMembers returns group's users, by name.
	GroupMembers(ctx context.Context, group string) ([]IAMEntity, error)
	// UserGroups returns the groups user is in, by name.
	UserGroups(ctx context.Context, user string) ([]IAMEntity, error)

	// CreatePolicy stores a managed policy (ErrEntityAlreadyExists for a
	// name in use); ARN, ID, Name, Path, Document and times are the
	// caller's.
	CreatePolicy(ctx context.Context, p ManagedPolicy) error
	// GetPolicy returns the managed policy arn names, AttachmentCount set.
	GetPolicy(ctx context.Context, arn string) (ManagedPolicy, error)
	ListPolicies(ctx context.Context, opts IAMListOptions) ([]ManagedPolicy, error)
	// DeletePolicy: ErrDeleteConflict while it is attached to anything or
	// is anything's permissions boundary.
	DeletePolicy(ctx context.Context, arn string) error

	// SetBoundary sets the permissions boundary of a user or role to the
	// managed policy arn (ErrNoSuchEntity when either does not exist); ""
	// removes it. GetEntity returns it as IAMEntity.Boundary.
	SetBoundary(ctx context.Context, kind EntityKind, entity, arn string) error

	// PutInlinePolicy stores doc as the inline policy name of a user,
	// group or role, replacing one of that name.
	PutInlinePolicy(ctx context.Context, kind EntityKind, entity, name string, doc []byte) error
	GetInlinePolicy(ctx context.Context, kind EntityKind, entity, name string) (InlinePolicy, error)
	// InlinePolicies returns all of an entity's inline policies, by name.
	InlinePolicies(ctx context.Context, kind EntityKind, entity string) ([]InlinePolicy, error)
	DeleteInlinePolicy(ctx context.Context, kind EntityKind, entity, name string) error

	// AttachPolicy attaches the managed policy arn to a user, group or
	// role (attached already is fine): ErrLimitExceeded beyond
	// MaxAttachedPolicies.
	AttachPolicy(ctx context.Context, kind EntityKind, entity, arn string) error
	// DetachPolicy: ErrNoSuchEntity when it is not attached.
	DetachPolicy(ctx context.Context, kind EntityKind, entity, arn string) error
	// AttachedPolicies returns the managed policies attached to an entity,
	// by name, documents included.
	AttachedPolicies(ctx context.Context, kind EntityKind, entity string) ([]ManagedPolicy, error)
}

// Quotas the store enforces (IAM's defaults).
const (
	MaxAccessKeys       = 2  // access keys per user
	MaxAttachedPolicies = 10 // managed policies attached to one user, group or role
)

// EntityKind is what an IAMEntity is.
type EntityKind uint8

const (
	EntityUser EntityKind = iota + 1
	EntityGroup
	EntityRole
)

func (k EntityKind) String() string {
	switch k {
	case EntityUser:
		return "user"
	case EntityGroup:
		return "group"
	case EntityRole:
		return "role"
	}
	return "EntityKind(?)"
}

// IAMEntity is a user, a group or a role.
type IAMEntity struct {
	Kind    EntityKind
	Name    string
	Path    string // "/" or "/a/b/"
	ID      string // IAM's unique ID: AIDA… (user), AGPA… (group), AROA… (role)
	ARN     string // arn:aws:iam::<account>:user/<path><name>, …:group/…, …:role/…
	Created time.Time
	// Boundary is the ARN of the managed policy that is the user's or
	// role's permissions boundary; "" when it has none.
	Boundary string

	// Roles only.
	Description        string
	TrustPolicy        []byte // AssumeRolePolicyDocument
	MaxSessionDuration time.Duration
}

// Access key statuses.
const (
	AccessKeyActive   = "Active"
	AccessKeyInactive = "Inactive"
)

// AccessKey is a user's access key. The secret is sealed by the caller
// (internal/iam/keyring): the store never holds it in plain text.
type AccessKey struct {
	ID       string // AKIA…, 20 characters
	User     string // the user's name
	Sealed   []byte // the secret access key, encrypted
	Status   string // AccessKeyActive or AccessKeyInactive
	Created  time.Time
	LastUsed time.Time // zero: never used (or not recorded)
}

// ManagedPolicy is a customer managed policy. JOG keeps one version of
// each, its default: DefaultVersion is always "v1".
type ManagedPolicy struct {
	Name            string
	Path            string
	ID              string // ANPA…
	ARN             string // arn:aws:iam::<account>:policy/<path><name>
	Description     string
	Document        []byte
	DefaultVersion  string
	Created         time.Time
	Updated         time.Time
	AttachmentCount int // read only: the users, groups and roles it is attached to
	// BoundaryCount is read only: the users and roles it is the
	// permissions boundary of.
	BoundaryCount int
}

// InlinePolicy is a policy embedded in one user, group or role.
type InlinePolicy struct {
	Name     string
	Document []byte
}

// IAMListOptions selects a page of users, groups, roles or policies.
type IAMListOptions struct {
	PathPrefix string // only paths starting with it ("" or "/": all)
	After      string // only names after this one, case-insensitively ("": from the first)
	Limit      int    // at most Limit; 0 means no limit
}

// NewAccountID returns a random 12-digit account ID, for a store to keep
// as its IAMAccount when it is created.
func NewAccountID() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1e12))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return fmt.Sprintf("%012d", n)
}
