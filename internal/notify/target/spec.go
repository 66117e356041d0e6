package target

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Kinds of target, the last part of their ARN.
const (
	Webhook = "webhook"
	NATS    = "nats"
)

// Sender delivers one message to a target (a durq.Sender) and
// closes its connections.
type Sender interface {
	Send(ctx context.Context, body []byte) error
	Close() error
}

// A Kind is a kind of target: its entry in kinds is all JOG knows of it.
// Its flags (--notify-<Name>, --notify-<Name>-token), their checks, its
// ARN and the server's senders are derived from it.
type Kind struct {
	// Name is the last part of the ARN (arn:jog:sqs:<region>:<ID>:<Name>).
	Name string
	// Usage says what an entry of --notify-<Name> is.
	Usage string
	// Token: the kind takes a bearer token per target, from
	// --notify-<Name>-token.
	Token bool
	// check checks an entry's URL; want is what a good one looks like.
	check func(u *url.URL) bool
	want  string
	// open makes the sender of a spec of the kind.
	open func(s Spec, log *slog.Logger) (Sender, error)
}

// kinds are the kinds of target, in the order of their flags.
var kinds = []Kind{webhookKind, natsKind}

// Kinds are the kinds of target, in the order of their flags.
func Kinds() []Kind { return slices.Clone(kinds) }

// Flag is the name of the kind's flag of targets.
func (k Kind) Flag() string { return "notify-" + k.Name }

// TokenFlag is the name of the kind's flag of tokens ("" for a kind
// without).
func (k Kind) TokenFlag() string {
	if !k.Token {
		return ""
	}
	return k.Flag() + "-token"
}

// FlagUsage is the help of the kind's flag of targets.
func (k Kind) FlagUsage() string {
	return "event notification target: " + k.Usage + " (repeatable, or space-separated); its ARN is arn:jog:sqs:<region>:<ID>:" + k.Name
}

// TokenUsage is the help of the kind's flag of tokens.
func (k Kind) TokenUsage() string {
	return "bearer token of a --" + k.Flag() + ": ID=TOKEN (repeatable, or space-separated; prefer the env variable: a flag shows in process listings)"
}

func kindOf(name string) (Kind, bool) {
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return kinds[i], true
}

// Spec is one configured target.
type Spec struct {
	ID   string
	Kind string // a Kind's Name: Webhook or NATS
	URL  string // http(s)://… for a webhook; nats://[user:pass@]host:port/subject for NATS
	// Token, for a kind that takes one, is sent as "Authorization: Bearer <token>".
	Token string
}

// ARN is the target's ARN in region: what a bucket's notification
// configuration names as its Queue.
func (s Spec) ARN(region string) string {
	return "arn:jog:sqs:" + region + ":" + s.ID + ":" + s.Kind
}

// Open makes the spec's sender.
func Open(s Spec, log *slog.Logger) (Sender, error) {
	k, ok := kindOf(s.Kind)
	if !ok {
		return nil, fmt.Errorf("notification target %s: no kind %q", s.ID, s.Kind)
	}
	return k.open(s, log)
}

// validID: an ID is a part of an ARN.
var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ParseSpecs reads the flags' values, each keyed by kind: entries are
// --notify-<kind>'s "ID=URL" entries, tokens --notify-<kind>-token's
// "ID=TOKEN" entries naming targets of the kind. It reports every
// mistake: a malformed entry, a bad URL, an ID given twice, a token for
// no target.
func ParseSpecs(entries, tokens map[string][]string) ([]Spec, error) {
	var specs []Spec
	var errs []error
	seen := map[string]bool{}
	for _, k := range kinds {
		flag := k.Flag()
		for _, e := range entries[k.Name] {
			id, u, ok := strings.Cut(e, "=")
			if !ok || !validID.MatchString(id) {
				errs = append(errs, fmt.Errorf("--%s %q: want ID=URL, the ID of letters, digits, - and _", flag, redactURL(e)))
				continue
			}
			if seen[id] {
				errs = append(errs, fmt.Errorf("--%s: target ID %q given twice", flag, id))
				continue
			}
			seen[id] = true
			if err := k.checkURL(u); err != nil {
				errs = append(errs, fmt.Errorf("--%s %s: %v", flag, id, err))
				continue
			}
			specs = append(specs, Spec{ID: id, Kind: k.Name, URL: u})
		}
	}
	for _, k := range kinds {
		flag := k.TokenFlag()
		if flag == "" {
			continue
		}
		for _, e := range tokens[k.Name] {
			id, tok, ok := strings.Cut(e, "=")
			i := indexOf(specs, id, k.Name)
			switch {
			case !ok || tok == "":
				errs = append(errs, fmt.Errorf("--%s: want ID=TOKEN", flag))
			case i < 0:
				errs = append(errs, fmt.Errorf("--%s: no --%s with ID %q", flag, k.Flag(), id))
			default:
				specs[i].Token = tok
			}
		}
	}
	return specs, errors.Join(errs...)
}

func indexOf(specs []Spec, id, kind string) int {
	for i, s := range specs {
		if s.ID == id && s.Kind == kind {
			return i
		}
	}
	return -1
}

// checkURL checks a target's URL.
func (k Kind) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bad URL %q", redactURL(raw))
	}
	if !k.check(u) {
		return fmt.Errorf("URL %q: want %s", redactURL(raw), k.want)
	}
	return nil
}

// subject is a NATS URL's path without its slash: the subject published to.
func subject(u *url.URL) string { return strings.TrimPrefix(u.Path, "/") }

// redactURL hides a URL's password, for errors.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return u.Redacted()
		}
	}
	if _, rest, ok := strings.Cut(s, "="); ok && rest != s {
		if r := redactURL(rest); r != rest {
			return s[:len(s)-len(rest)] + r
		}
	}
	return s
}
