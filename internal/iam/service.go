// Package iam is JOG's identity layer: users and their access keys,
// groups, roles and policies, over the metadata store's meta.IAMStore, with
// secret access keys sealed by internal/iam/keyring and policy documents
// checked by internal/iam/policy. The IAM query API calls the operations
// here; the S3 edge asks SecretKey (a sigv4.Credentials) and Principal for
// the user behind an access key and the policies that apply to it.
//
//	service.go    Service, options, errors, IDs and ARNs, paging
//	names.go      IAM's rules for names and paths
//	users.go      users and access keys
//	groups.go     groups and membership
//	roles.go      roles and their trust policies
//	policies.go   managed policies, inline policies, attachments
//	principal.go  SecretKey and Principal, cached, invalidated by the
//	              store's change counter
//
// Errors are meta's IAM sentinels (ErrNoSuchEntity, ErrEntityAlreadyExists,
// ErrLimitExceeded, ErrDeleteConflict) and this package's
// (ErrMalformedPolicyDocument, ErrValidation, ErrInvalidInput), each an
// error code of IAM's API, all as *meta.IAMError carrying IAM's message.
package iam

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// Errors of IAM's API this layer finds itself; the API maps them, and
// meta's IAM sentinels, to IAM error codes.
var (
	// ErrMalformedPolicyDocument: a policy document the policy language
	// refuses; the message is the parser's reason.
	ErrMalformedPolicyDocument = errors.New("MalformedPolicyDocument")
	// ErrValidation: a name, path or number outside what IAM accepts
	// (IAM's ValidationError).
	ErrValidation = errors.New("ValidationError")
	// ErrInvalidInput: a value IAM refuses with InvalidInput (a status
	// other than Active or Inactive, an ARN that is not one).
	ErrInvalidInput = errors.New("InvalidInput")
	// ErrNoSuchKey: Principal's answer for an access key that does not
	// exist or is inactive (S3: InvalidAccessKeyId).
	ErrNoSuchKey = errors.New("access key does not exist or is inactive")
)

// Options tune a Service.
type Options struct {
	// PollInterval is how long the authorization cache trusts itself
	// before it asks the store's change counter again: the longest a change
	// made by another gateway goes unseen, unless the store announces it
	// (StoreChanged). Changes made through this Service are seen at once.
	// 0: ask before every lookup.
	PollInterval time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Service is the IAM layer. It is safe for concurrent use.
type Service struct {
	store   meta.IAMStore
	keys    *keyring.Keyring
	opts    Options
	account string

	mu    sync.RWMutex
	cache cache
}

// New returns a Service over store, sealing secrets with keys.
func New(ctx context.Context, store meta.IAMStore, keys *keyring.Keyring, opts Options) (*Service, error) {
	account, err := store.IAMAccount(ctx)
	if err != nil {
		return nil, fmt.Errorf("iam: read the account ID: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{store: store, keys: keys, opts: opts, account: account}, nil
}

// Account returns the account ID that ARNs name.
func (s *Service) Account() string { return s.account }

// now is the time stores keep: UTC, milliseconds.
func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }

// changed runs after every write through the Service: the cache forgets
// what it knew, whether or not the write succeeded (a failed write may
// have committed before its error).
func (s *Service) changed(err error) error {
	s.invalidate()
	return err
}

// Unique ID prefixes, as IAM's.
const (
	prefixUser      = "AIDA"
	prefixGroup     = "AGPA"
	prefixRole      = "AROA"
	prefixPolicy    = "ANPA"
	prefixAccessKey = "AKIA"
)

// newID returns prefix and random base32 characters, n in all: IAM's
// unique IDs are 21 characters, access key IDs 20.
func newID(prefix string, n int) string {
	return prefix + rand.Text()[:n-len(prefix)]
}

// arn returns arn:aws:iam::<account>:<resource>/<path without its leading
// slash><name>.
func (s *Service) arn(resource, path, name string) string {
	return "arn:aws:iam::" + s.account + ":" + resource + path + name
}

func invalid(code error, format string, args ...any) error {
	return meta.IAMErrorf(code, format, args...)
}

// Page selects a page of a listing as IAM's List* calls do: entities whose
// path starts with PathPrefix, after Marker (the previous page's), at
// most MaxItems (0: 100).
type Page struct {
	PathPrefix string
	Marker     string
	MaxItems   int
}

// DefaultMaxItems and MaxMaxItems bound Page.MaxItems, as IAM does.
const (
	DefaultMaxItems = 100
	MaxMaxItems     = 1000
)

// options checks p and turns it into the store's options, asking one
// item more than the page shows to learn whether more follow.
func (p Page) options() (meta.IAMListOptions, error) {
	if p.MaxItems == 0 {
		p.MaxItems = DefaultMaxItems
	}
	if p.MaxItems < 1 || p.MaxItems > MaxMaxItems {
		return meta.IAMListOptions{}, invalid(ErrValidation, "1 validation error detected: Value '%d' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and %d", p.MaxItems, MaxMaxItems)
	}
	if p.PathPrefix != "" {
		if err := checkPathPrefix(p.PathPrefix); err != nil {
			return meta.IAMListOptions{}, err
		}
	}
	return meta.IAMListOptions{PathPrefix: p.PathPrefix, After: p.Marker, Limit: p.MaxItems + 1}, nil
}

// page cuts a listing fetched with p.options() to p.MaxItems: the items
// shown and the marker of the next page ("" when this is the last).
func page[T any](p Page, items []T, name func(T) string) ([]T, string) {
	max := p.MaxItems
	if max == 0 {
		max = DefaultMaxItems
	}
	if len(items) <= max {
		return items, ""
	}
	items = items[:max]
	return items, name(items[max-1])
}

func entityName(e meta.IAMEntity) string { return e.Name }

// parsePolicy checks a policy document of kind: a *policy.SizeError is
// IAM's LimitExceeded, another refusal MalformedPolicyDocument with the
// parser's reason.
func parsePolicy(doc []byte, kind policy.Kind) error {
	_, err := policy.Parse(doc, kind)
	var size *policy.SizeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &size):
		return invalid(meta.ErrLimitExceeded, "%s", size.Error())
	default:
		return invalid(ErrMalformedPolicyDocument, "%s", err.Error())
	}
}

// checkSize applies one of IAM's size quotas to a document: LimitExceeded.
func checkSize(doc []byte, quota string, limit int) error {
	if err := policy.CheckSize(doc, quota, limit); err != nil {
		return invalid(meta.ErrLimitExceeded, "%s", err.Error())
	}
	return nil
}

// checkARN refuses what is not an IAM policy ARN (InvalidInput). One of
// another account or of AWS's own managed policies passes here and is not
// found in the store.
func checkARN(arn string) error {
	if !strings.HasPrefix(arn, "arn:aws:iam::") || !strings.Contains(arn, ":policy/") {
		return invalid(ErrInvalidInput, "ARN %s is not valid.", arn)
	}
	return nil
}
