package policy

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PrincipalType is who makes a request.
type PrincipalType uint8

const (
	Anonymous     PrincipalType = iota // an unsigned request
	Root                               // the account's root credentials
	User                               // an IAM user (also with GetSessionToken credentials)
	AssumedRole                        // a role session from AssumeRole
	FederatedUser                      // a federated user session from GetFederationToken
	// Service is an AWS service principal acting on its own (S3's log
	// delivery, logging.s3.amazonaws.com): Request.ARN is its name. Only
	// a resource policy statement naming it (or every principal) allows
	// it.
	Service
)

// Request is what a policy decides on. Context holds the request's
// condition keys (aws:SourceIp, aws:username, s3:prefix, …); fill it with
// Context.Set so that keys are matched without case.
type Request struct {
	Type    PrincipalType
	Account string // the principal's account ID
	// ARN is the principal's own ARN: arn:aws:iam::ACCOUNT:user/NAME,
	// arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION,
	// arn:aws:sts::ACCOUNT:federated-user/NAME, arn:aws:iam::ACCOUNT:root.
	ARN string
	// ParentARN is the identity a session belongs to: the role's ARN
	// (arn:aws:iam::ACCOUNT:role/ROLE) for an assumed role, the IAM user's
	// for a federated user. A resource policy that names it grants no more
	// than the session's policies allow.
	ParentARN   string
	CanonicalID string // the principal's canonical user ID, for CanonicalUser principals

	Action   string // "s3:GetObject"
	Resource string // "arn:aws:s3:::bucket/key"
	// Time, when set, is aws:CurrentTime and aws:EpochTime for Date
	// conditions (no parsing per evaluation); Context's values of those
	// keys serve the other operators, and Date ones when Time is zero.
	Time    time.Time
	Context Context
}

// Context maps condition keys, in lower case, to their values.
type Context map[string][]string

// Set sets a key's values.
func (c Context) Set(key string, values ...string) { c[strings.ToLower(key)] = values }

// Add adds values to a key's. Keys that differ only in case are one key:
// a tag condition key (s3:RequestObjectTag/Class, …/class) holds the
// values of every tag whose key it names, so no value hides another.
func (c Context) Add(key string, values ...string) {
	k := strings.ToLower(key)
	c[k] = append(c[k][:len(c[k]):len(c[k])], values...)
}

// Get is a key's values.
func (c Context) Get(key string) []string { return c[strings.ToLower(key)] }

func (r *Request) values(lowerKey string) []string { return r.Context[lowerKey] }

// Decision is the outcome of an evaluation.
type Decision uint8

const (
	ImplicitDeny Decision = iota // no policy allows the request
	Allowed
	ExplicitDeny // a Deny statement applies
)

func (d Decision) String() string {
	switch d {
	case Allowed:
		return "Allow"
	case ExplicitDeny:
		return "ExplicitDeny"
	}
	return "ImplicitDeny"
}

// Set is the policies that apply to one request. Nil members are absent:
// a nil Boundary or Session does not narrow anything.
type Set struct {
	Identity []*Compiled // the principal's own, its groups', its role's
	Resource *Compiled   // the bucket policy (or a role's trust policy for sts:AssumeRole)
	Boundary *Compiled   // the principal's permissions boundary
	Session  *Compiled   // the session policy of temporary credentials
}

// Source is the kind of policy a decision other than Allowed comes
// from: the one with the Deny statement, or the one that would have had
// to allow. It is what AWS's access denied messages name ("with an
// explicit deny in a resource-based policy", "because no identity-based
// policy allows …").
type Source uint8

const (
	NoSource       Source = iota // Allowed
	IdentityPolicy               // the principal's identity-based policies
	ResourcePolicy               // the resource-based policy (a bucket policy, an ACL, a trust policy)
	Boundary                     // the permissions boundary
	SessionPolicy                // the session policy
)

func (s Source) String() string {
	switch s {
	case IdentityPolicy:
		return "identity-based policy"
	case ResourcePolicy:
		return "resource-based policy"
	case Boundary:
		return "permissions boundary"
	case SessionPolicy:
		return "session policy"
	}
	return ""
}

// Outcome is a decision and the kind of policy behind it when it is not
// Allowed.
type Outcome struct {
	Decision Decision
	Source   Source
}

// Evaluate decides a request within a single account as AWS's policy
// evaluation logic does (Explain, without the why).
func Evaluate(r *Request, s *Set) Decision { return Explain(r, s).Decision }

// Explain decides a request within a single account as AWS's policy
// evaluation logic does, and says which kind of policy denied it:
//
//  1. An explicit Deny in any of the policies denies: the resource
//     policy's first, then the identity policies', the boundary's, the
//     session policy's.
//  2. The root user is allowed (only a resource policy's Deny stops it).
//  3. A resource policy Allow that names the principal itself ("*", the
//     user's ARN, the role session's ARN, the service's name) allows,
//     whatever the boundary and session policy say. An anonymous request
//     or a service principal can only be allowed so (else: no
//     resource-based policy allows).
//  4. Otherwise an Allow in an identity policy, or a resource policy
//     Allow naming the session's role (or federated user's IAM user),
//     allows if the permissions boundary and the session policy, where
//     there are any, allow too. A resource policy naming the account
//     grants nothing by itself: the account delegates to its identity
//     policies.
//  5. Else the request is implicitly denied: by the identity policies
//     when none allows, else by the boundary or the session policy that
//     does not.
//
// A trust policy in Resource must allow in every case (an identity policy
// alone never lets a principal assume a role).
func Explain(r *Request, s *Set) Outcome {
	resAllow := matchNone
	if s.Resource != nil {
		deny, allow := s.Resource.eval(r)
		if deny {
			return Outcome{ExplicitDeny, ResourcePolicy}
		}
		resAllow = allow
		if s.Resource.kind == Trust && allow == matchNone {
			return Outcome{ImplicitDeny, ResourcePolicy} // a role is assumed only where its trust policy allows
		}
	}
	switch r.Type {
	case Anonymous, Service:
		if resAllow == matchDirect {
			return Outcome{Decision: Allowed}
		}
		return Outcome{ImplicitDeny, ResourcePolicy}
	case Root:
		return Outcome{Decision: Allowed}
	}
	idAllow := false
	for _, p := range s.Identity {
		deny, allow := p.eval(r)
		if deny {
			return Outcome{ExplicitDeny, IdentityPolicy}
		}
		idAllow = idAllow || allow != matchNone
	}
	narrowedBy := NoSource // the first of boundary and session policy that allows nothing
	for _, n := range [...]struct {
		p   *Compiled
		src Source
	}{{s.Boundary, Boundary}, {s.Session, SessionPolicy}} {
		if n.p == nil {
			continue
		}
		deny, allow := n.p.eval(r)
		if deny {
			return Outcome{ExplicitDeny, n.src}
		}
		if allow == matchNone && narrowedBy == NoSource {
			narrowedBy = n.src
		}
	}
	switch {
	case resAllow == matchDirect:
		return Outcome{Decision: Allowed}
	case !idAllow && resAllow != matchParent:
		return Outcome{ImplicitDeny, IdentityPolicy}
	case narrowedBy != NoSource:
		return Outcome{ImplicitDeny, narrowedBy}
	}
	return Outcome{Decision: Allowed}
}

// How a statement's principal names the requester; a better match
// grants more.
type principalMatch uint8

const (
	matchNone    principalMatch = iota
	matchAccount                // the principal's account: a delegation
	matchParent                 // the session's role or IAM user
	matchDirect                 // the principal itself, or "*"
)

// Compiled is a policy compiled for evaluation. It is immutable and safe
// for concurrent use.
type Compiled struct {
	kind  Kind
	stmts []statement
	keys  []string // the condition keys its statements read (conditions, variables), lower case, once each
	// byAction maps an action to the statements whose Action (or
	// NotAction) lets it through (*forAction): an action has no
	// variables, so the match depends on the action alone, and a request
	// evaluates only the statements about it.
	byAction sync.Map
	actions  atomic.Int32 // entries in byAction, at most maxActions
}

// maxActions bounds byAction: a caller asking about ever new action names
// gets the statements matched each time instead of a growing map.
const maxActions = 4096

// candidates are the indices of the statements whose Action or NotAction
// lets action through.
func (c *Compiled) candidates(action string) []int32 { return c.forAction(action).idx }

// forAction is what a policy evaluates for one action: the statements
// whose Action or NotAction lets it through, indices in order, and the
// condition keys those statements read.
type forAction struct {
	idx  []int32
	keys []string
}

func (c *Compiled) forAction(action string) *forAction {
	if v, ok := c.byAction.Load(action); ok {
		return v.(*forAction)
	}
	fa := &forAction{idx: make([]int32, 0, len(c.stmts))}
	for i := range c.stmts {
		st := &c.stmts[i]
		if matchAny(st.actions, action, true, nil) != st.notAction {
			fa.idx = append(fa.idx, int32(i))
			for _, k := range st.keys {
				fa.keys = addKey(fa.keys, k)
			}
		}
	}
	if c.actions.Add(1) <= maxActions {
		c.byAction.Store(action, fa)
	}
	return fa
}

// Keys returns the condition keys the policy reads, lower case, each
// once: its conditions' keys and the variables in its resources and
// condition values. A caller may fill Request.Context with these alone.
func (c *Compiled) Keys() []string { return c.keys }

// KeysFor returns the condition keys that the statements about action
// read (Keys of the statements that action's evaluation looks at, in
// Keys' order): a caller may fill Request.Context with these alone for a
// request for action.
func (c *Compiled) KeysFor(action string) []string { return c.forAction(action).keys }

func addKey(keys []string, k string) []string {
	if !slices.Contains(keys, k) {
		keys = append(keys, k)
	}
	return keys
}

// addVars adds to keys those of the policy variables in pats.
func addVars(keys []string, pats []pattern) []string {
	for i := range pats {
		for _, t := range pats[i].toks {
			if t.kind == tVar {
				keys = addKey(keys, t.key)
			}
		}
	}
	return keys
}

// MentionsKeyPrefix reports whether a condition of the policy names a key
// starting with lowerPrefix ("s3:existingobjecttag/"): a caller fills
// costly keys only for policies that use them.
func (c *Compiled) MentionsKeyPrefix(lowerPrefix string) bool {
	for _, k := range c.keys {
		if strings.HasPrefix(k, lowerPrefix) {
			return true
		}
	}
	return false
}

type statement struct {
	deny         bool
	principal    *principalSet // nil in identity policies
	notPrincipal bool
	actions      []pattern
	notAction    bool
	resources    []pattern // empty in trust policies: every resource
	notResource  bool
	conds        []cond
	keys         []string // the condition keys it reads (conditions, variables), lower case, once each
}

type principalSet struct {
	wildcard  bool
	accounts  []string
	arns      []string
	canonical []string
	services  []string
}

// Compile compiles a policy. Parse has already compiled the policies it
// returns, so only a Policy built in code can fail here.
func Compile(p *Policy) (*Compiled, error) {
	vars := p.Version == Version2012
	c := &Compiled{kind: p.Kind, stmts: make([]statement, 0, len(p.Statements))}
	for i := range p.Statements {
		st := &p.Statements[i]
		cs := statement{deny: st.Effect == Deny}
		switch {
		case st.Principal != nil:
			cs.principal = compilePrincipal(st.Principal)
		case st.NotPrincipal != nil:
			cs.principal, cs.notPrincipal = compilePrincipal(st.NotPrincipal), true
		}
		actions := st.Action
		if st.NotAction != nil {
			actions, cs.notAction = st.NotAction, true
		}
		for _, a := range actions {
			cs.actions = append(cs.actions, compilePattern(a, true, false))
		}
		resources := st.Resource
		if st.NotResource != nil {
			resources, cs.notResource = st.NotResource, true
		}
		for _, r := range resources {
			cs.resources = append(cs.resources, compilePattern(r, true, vars))
		}
		cs.keys = addVars(cs.keys, cs.resources)
		for _, cd := range st.Conditions {
			k, err := compileCondition(cd, vars)
			if err != nil {
				return nil, err
			}
			cs.conds = append(cs.conds, k)
			cs.keys = addKey(cs.keys, k.key)
			cs.keys = addVars(cs.keys, k.pats)
			for _, a := range k.arns {
				cs.keys = addVars(cs.keys, a.parts[:])
			}
		}
		for _, k := range cs.keys {
			c.keys = addKey(c.keys, k)
		}
		c.stmts = append(c.stmts, cs)
	}
	return c, nil
}

// Join returns one policy holding the statements of cs, all of one kind:
// it allows what any of them allows and denies what any denies. Several
// session policies (an inline one and managed ones) narrow a session as
// one Set.Session. Join of a single policy is that policy.
func Join(cs ...*Compiled) *Compiled {
	if len(cs) == 1 {
		return cs[0]
	}
	j := &Compiled{}
	for _, c := range cs {
		j.kind = c.kind
		j.stmts = append(j.stmts, c.stmts...)
		for _, k := range c.keys {
			if !slices.Contains(j.keys, k) {
				j.keys = append(j.keys, k)
			}
		}
	}
	return j
}

// ParseCompiled parses, validates and compiles a document.
func ParseCompiled(doc []byte, kind Kind) (*Compiled, error) {
	p, err := Parse(doc, kind)
	if err != nil {
		return nil, err
	}
	return Compile(p)
}

func compilePrincipal(p *Principal) *principalSet {
	ps := &principalSet{wildcard: p.Wildcard, canonical: p.CanonicalUser, services: p.Service}
	for _, id := range p.AWS {
		switch {
		case id == "*":
			ps.wildcard = true
		case isAccountID(id):
			ps.accounts = append(ps.accounts, id)
		case strings.HasSuffix(id, ":root") && strings.Count(id, ":") == 5:
			ps.accounts = append(ps.accounts, strings.Split(id, ":")[4])
		default:
			ps.arns = append(ps.arns, id)
		}
	}
	return ps
}

func (ps *principalSet) match(r *Request) principalMatch {
	if ps.wildcard {
		return matchDirect
	}
	switch r.Type {
	case Anonymous:
		return matchNone
	case Service: // named by {"Service": name} alone
		if slices.Contains(ps.services, r.ARN) {
			return matchDirect
		}
		return matchNone
	}
	best := matchNone
	for _, a := range ps.arns {
		switch {
		case a == r.ARN:
			return matchDirect
		case r.ParentARN != "" && a == r.ParentARN:
			best = matchParent
		}
	}
	for _, id := range ps.canonical {
		if r.CanonicalID != "" && id == r.CanonicalID {
			return matchDirect
		}
	}
	if best == matchNone {
		for _, a := range ps.accounts {
			if a == r.Account {
				if r.Type == Root {
					return matchDirect
				}
				best = matchAccount
			}
		}
	}
	return best
}

// eval reports whether a Deny statement applies to the request and how
// well the best applicable Allow statement names the requester (an
// identity policy's Allow names it directly).
func (c *Compiled) eval(r *Request) (deny bool, allow principalMatch) {
	// The action first: it rules out most statements, once per action.
	for _, i := range c.candidates(r.Action) {
		st := &c.stmts[i]
		who := matchDirect
		if st.principal != nil {
			who = st.principal.match(r)
			if st.notPrincipal {
				if who != matchNone {
					continue
				}
				who = matchDirect
			} else if who == matchNone {
				continue
			}
		}
		if !st.deny && who <= allow {
			continue // cannot improve on an Allow already found
		}
		if !st.applies(r) {
			continue
		}
		if st.deny {
			return true, matchNone
		}
		allow = who
	}
	return false, allow
}

// applies reports whether the statement's Resource and Condition match
// the request (eval has matched its Action).
func (st *statement) applies(r *Request) bool {
	if len(st.resources) > 0 && matchAny(st.resources, r.Resource, false, r) == st.notResource {
		return false
	}
	for i := range st.conds {
		if !st.conds[i].eval(r) {
			return false
		}
	}
	return true
}

// Allows reports whether the policy alone allows the request: some Allow
// statement applies and no Deny does. Principals are matched as in
// Evaluate (an anonymous request matches only "*").
func (c *Compiled) Allows(r *Request) bool {
	deny, allow := c.eval(r)
	return !deny && allow != matchNone
}
