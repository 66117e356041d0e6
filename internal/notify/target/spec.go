package target

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Kinds of target, the last part of their ARN.
const (
	Webhook = "webhook"
	NATS    = "nats"
)

// Spec is one configured target.
type Spec struct {
	ID   string
	Kind string // Webhook or NATS
	URL  string // http(s)://… for a webhook; nats://[user:pass@]host:port/subject for NATS
	// Token, for a webhook, is sent as "Authorization: Bearer <token>".
	Token string
}

// ARN is the target's ARN in region: what a bucket's notification
// configuration names as its Queue.
func (s Spec) ARN(region string) string {
	return "arn:jog:sqs:" + region + ":" + s.ID + ":" + s.Kind
}

// validID: an ID is a part of an ARN.
var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ParseSpecs reads the flags' values: webhooks and nats are "ID=URL"
// entries, tokens "ID=TOKEN" entries naming webhooks. It reports every
// mistake: a malformed entry, a bad URL, an ID given twice, a token for
// no webhook.
func ParseSpecs(webhooks, nats, tokens []string) ([]Spec, error) {
	var specs []Spec
	var errs []error
	seen := map[string]bool{}
	add := func(flag, kind string, entries []string) {
		for _, e := range entries {
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
			if err := checkURL(kind, u); err != nil {
				errs = append(errs, fmt.Errorf("--%s %s: %v", flag, id, err))
				continue
			}
			specs = append(specs, Spec{ID: id, Kind: kind, URL: u})
		}
	}
	add("notify-webhook", Webhook, webhooks)
	add("notify-nats", NATS, nats)
	for _, e := range tokens {
		id, tok, ok := strings.Cut(e, "=")
		i := indexOf(specs, id, Webhook)
		switch {
		case !ok || tok == "":
			errs = append(errs, errors.New("--notify-webhook-token: want ID=TOKEN"))
		case i < 0:
			errs = append(errs, fmt.Errorf("--notify-webhook-token: no --notify-webhook with ID %q", id))
		default:
			specs[i].Token = tok
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
func checkURL(kind, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bad URL %q", redactURL(raw))
	}
	switch kind {
	case Webhook:
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("URL %q: want http://host/path or https://host/path", redactURL(raw))
		}
	case NATS:
		if (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" || subject(u) == "" {
			return fmt.Errorf("URL %q: want nats://[user:password@]host:4222/subject", redactURL(raw))
		}
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
