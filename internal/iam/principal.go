package iam

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// Principal is an IAM user or role and the identity policies that apply
// to it: its inline and attached policies and, for a user, those of each
// of its groups, compiled. It is shared by every request of the entity
// until the store changes; it must not be modified.
type Principal struct {
	Kind     meta.EntityKind // meta.EntityUser or meta.EntityRole
	ARN      string          // arn:aws:iam::<account>:user/<path><name> (role/… for a role)
	UserID   string          // the unique ID: AIDA… (AROA… for a role)
	UserName string          // the user's name (the role's for a role)
	Account  string
	Policies []*policy.Compiled
	// Boundary is the user's permissions boundary (nil: none): it caps
	// what Policies allow.
	Boundary *policy.Compiled
}

// cache is what SecretKey and Principal have loaded, valid while the
// store's change counter reads gen. Guarded by Service.mu.
type cache struct {
	gen     int64
	checked time.Time // when gen was last read from the store; zero: read it now
	// epoch grows at every reset: a load that began before a reset does
	// not store what it read.
	epoch      uint64
	keys       map[string]cachedKey        // by access key ID
	principals map[string]*Principal       // by entityKey
	sessions   map[string]*policy.Compiled // session policies, by sessionKey
}

// entityKey is a principal's key in the cache: IAM names are unique
// without case.
func entityKey(kind meta.EntityKind, name string) string {
	return string(kind) + "/" + strings.ToLower(name)
}

type cachedKey struct {
	secret string
	user   string
	active bool
	// principal is the key's user, once Principal has loaded it: a
	// request then finds both in one look-up.
	principal *Principal
}

func (c *cache) reset() {
	c.epoch++
	c.keys, c.principals, c.sessions = nil, nil, nil
}

// invalidate drops the cache and makes the next lookup read the change
// counter.
func (s *Service) invalidate() {
	s.mu.Lock()
	s.cache.reset()
	s.cache.checked = time.Time{}
	s.mu.Unlock()
}

// StoreChanged tells the Service that another process sharing the store
// wrote IAM (meta.ChangedIAM, or meta.ChangedAll: relayed by the server
// from meta.Changes): the cache is dropped and the next lookup reads the
// change counter, as after a write through this Service. Without it, such
// a write is seen within PollInterval.
func (s *Service) StoreChanged() { s.invalidate() }

// fresh returns the cache's epoch once it reflects the store: when the
// change counter was read more than PollInterval ago (or never), it is
// read again, and a new value drops the cache.
func (s *Service) fresh(ctx context.Context) (uint64, error) {
	now := s.opts.Now()
	s.mu.RLock()
	if !s.cache.checked.IsZero() && now.Sub(s.cache.checked) < s.opts.PollInterval {
		defer s.mu.RUnlock()
		return s.cache.epoch, nil
	}
	s.mu.RUnlock()
	gen, err := s.store.IAMGeneration(ctx)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.cache.gen {
		s.cache.reset()
		s.cache.gen = gen
	}
	s.cache.checked = now
	return s.cache.epoch, nil
}

// key returns what the cache knows of access key id, loading it, with
// the cache's epoch. An unknown key is not remembered (the cache would
// grow with every made-up key ID sent), so each costs a read.
func (s *Service) key(ctx context.Context, id string) (k cachedKey, found bool, epoch uint64, err error) {
	epoch, err = s.fresh(ctx)
	if err != nil {
		return cachedKey{}, false, 0, err
	}
	s.mu.RLock()
	k, found = s.cache.keys[id]
	s.mu.RUnlock()
	if found {
		return k, true, epoch, nil
	}
	stored, err := s.store.GetAccessKey(ctx, id)
	if errors.Is(err, meta.ErrNoSuchEntity) {
		return cachedKey{}, false, epoch, nil
	}
	if err != nil {
		return cachedKey{}, false, 0, err
	}
	secret, err := s.keys.Open(id, stored.Sealed)
	if err != nil {
		// The server key is not the one that sealed it (a lost iam.key).
		return cachedKey{}, false, 0, fmt.Errorf("iam: access key %s: %w", id, err)
	}
	k = cachedKey{secret: secret.Reveal(), user: stored.User, active: stored.Status == meta.AccessKeyActive}
	s.remember(epoch, func(c *cache) { c.keys[id] = k })
	return k, true, epoch, nil
}

// remember stores into the cache what a load begun at epoch read, unless
// the cache was reset since.
func (s *Service) remember(epoch uint64, put func(*cache)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache.epoch != epoch {
		return
	}
	if s.cache.keys == nil {
		s.cache.keys, s.cache.principals = map[string]cachedKey{}, map[string]*Principal{}
		s.cache.sessions = map[string]*policy.Compiled{}
	}
	put(&s.cache)
}

// SecretKey returns the secret of an active access key: it makes the
// Service a sigv4.Credentials. Unknown and inactive keys, and a key whose
// secret does not open under the server key, are not found.
func (s *Service) SecretKey(accessKeyID string) (string, bool) {
	k, found, _, err := s.key(context.Background(), accessKeyID)
	if err != nil || !found || !k.active {
		return "", false
	}
	return k.secret, true
}

// Principal returns the user behind an active access key and its
// compiled identity policies: ErrNoSuchKey for a key that does not exist
// or is inactive. A stored policy that no longer compiles is an error,
// not skipped: skipping a Deny would grant what it denies.
func (s *Service) Principal(ctx context.Context, accessKeyID string) (*Principal, error) {
	k, found, epoch, err := s.key(ctx, accessKeyID)
	if err != nil {
		return nil, err
	}
	if !found || !k.active {
		return nil, ErrNoSuchKey
	}
	return s.keyPrincipal(ctx, accessKeyID, k, epoch)
}

// KeyHolder returns the secret of an active access key and the user
// behind it, in one look-up: it makes the Service a
// sigv4.HolderCredentials, so that a request's signature check finds
// whose request it is too. A user that does not load (a store error, a
// stored policy that no longer compiles) is returned nil; Principal,
// asked then, reports the error.
func (s *Service) KeyHolder(accessKeyID string) (string, *Principal, bool) {
	ctx := context.Background()
	k, found, epoch, err := s.key(ctx, accessKeyID)
	if err != nil || !found || !k.active {
		return "", nil, false
	}
	p, err := s.keyPrincipal(ctx, accessKeyID, k, epoch)
	if err != nil {
		p = nil
	}
	return k.secret, p, true
}

// keyPrincipal returns the user of key k (access key id), as the cache
// at epoch holds it or loaded.
func (s *Service) keyPrincipal(ctx context.Context, accessKeyID string, k cachedKey, epoch uint64) (*Principal, error) {
	if k.principal != nil {
		return k.principal, nil
	}
	p, err := s.principal(ctx, meta.EntityUser, k.user, epoch)
	if err != nil {
		return nil, err
	}
	s.remember(epoch, func(c *cache) {
		if ck, ok := c.keys[accessKeyID]; ok {
			ck.principal = p
			c.keys[accessKeyID] = ck
		}
	})
	return p, nil
}

// EntityPrincipal returns a user or role (kind) and its compiled identity
// policies, as Principal does for a key: the principal of temporary
// credentials, whose token names the user or role. A missing entity is
// meta.ErrNoSuchEntity.
func (s *Service) EntityPrincipal(ctx context.Context, kind meta.EntityKind, name string) (*Principal, error) {
	epoch, err := s.fresh(ctx)
	if err != nil {
		return nil, err
	}
	return s.principal(ctx, kind, name, epoch)
}

// principal returns the cached principal of an entity, loading it.
func (s *Service) principal(ctx context.Context, kind meta.EntityKind, name string, epoch uint64) (*Principal, error) {
	key := entityKey(kind, name)
	s.mu.RLock()
	p := s.cache.principals[key]
	s.mu.RUnlock()
	if p != nil {
		return p, nil
	}
	p, err := s.loadPrincipal(ctx, kind, name)
	if err != nil {
		return nil, err
	}
	s.remember(epoch, func(c *cache) { c.principals[key] = p })
	return p, nil
}

// loadPrincipal reads a user or role and the policies that apply to it.
func (s *Service) loadPrincipal(ctx context.Context, kind meta.EntityKind, name string) (*Principal, error) {
	u, err := s.store.GetEntity(ctx, kind, name)
	if err != nil {
		return nil, err
	}
	p := &Principal{Kind: kind, ARN: u.ARN, UserID: u.ID, UserName: u.Name, Account: s.account}
	var groups []meta.IAMEntity
	if kind == meta.EntityUser {
		if groups, err = s.store.UserGroups(ctx, u.Name); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{} // managed policies by ARN: attached twice, counted once
	add := func(kind meta.EntityKind, entity string) error {
		inline, err := s.store.InlinePolicies(ctx, kind, entity)
		if err != nil {
			return err
		}
		attached, err := s.store.AttachedPolicies(ctx, kind, entity)
		if err != nil {
			return err
		}
		for _, ip := range inline {
			if err := p.compile(ip.Document, kind, entity, ip.Name); err != nil {
				return err
			}
		}
		for _, mp := range attached {
			if seen[mp.ARN] {
				continue
			}
			seen[mp.ARN] = true
			if err := p.compile(mp.Document, kind, entity, mp.ARN); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(kind, u.Name); err != nil {
		return nil, err
	}
	if u.Boundary != "" {
		if p.Boundary, err = s.compiledPolicy(ctx, u.Boundary, "the permissions boundary of user "+u.Name); err != nil {
			return nil, err
		}
	}
	for _, g := range groups {
		if err := add(meta.EntityGroup, g.Name); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Principal) compile(doc []byte, kind meta.EntityKind, entity, name string) error {
	c, err := policy.ParseCompiled(doc, policy.Identity)
	if err != nil {
		return fmt.Errorf("iam: policy %s of %s %s does not compile: %w", name, kind, entity, err)
	}
	p.Policies = append(p.Policies, c)
	return nil
}

// compiledPolicy reads and compiles the managed policy arn, which is what
// names in an error.
func (s *Service) compiledPolicy(ctx context.Context, arn, what string) (*policy.Compiled, error) {
	mp, err := s.store.GetPolicy(ctx, arn)
	if err != nil {
		return nil, err
	}
	c, err := policy.ParseCompiled(mp.Document, policy.Identity)
	if err != nil {
		return nil, fmt.Errorf("iam: policy %s, %s, does not compile: %w", arn, what, err)
	}
	return c, nil
}
