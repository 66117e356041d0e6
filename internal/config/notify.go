package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/notify/target"
	"github.com/jogstore/jog/internal/units"
)

// Notify holds the settings of bucket event notifications (internal/notify,
// docs/NOTIFICATIONS.md): the targets buckets may name, and the bound of
// the durable queue of deliveries.
type Notify struct {
	// Webhooks and NATS are the targets, "ID=URL" each; WebhookTokens
	// the webhooks' bearer tokens, "ID=TOKEN" each (a secret: its row of
	// the settings table says so, and --print-config masks it).
	Webhooks, NATS, WebhookTokens List
	// QueueMax bounds the bytes of the queue on this gateway's disk
	// (queue.Options.MaxBytes): past it events are refused (logged,
	// counted) rather than stored; 0 leaves the queue's own default.
	QueueMax Size
}

// settings are the notification rows of the settings table.
func (n *Notify) settings() []setting {
	return []setting{
		{name: "notify-webhook", ptr: &n.Webhooks, usage: "event notification target: ID=URL of a webhook taking a POST of each event as JSON (repeatable, or space-separated); its ARN is arn:jog:sqs:<region>:<ID>:webhook"},
		{name: "notify-webhook-token", ptr: &n.WebhookTokens, usage: "bearer token of a --notify-webhook: ID=TOKEN (repeatable, or space-separated; prefer the env variable: a flag shows in process listings)", secret: true},
		{name: "notify-nats", ptr: &n.NATS, usage: "event notification target: ID=nats://[user:password@]host:4222/subject, each event published to the subject (repeatable, or space-separated); its ARN is arn:jog:sqs:<region>:<ID>:nats"},
		{name: "notify-queue-max", ptr: &n.QueueMax, usage: "most bytes of undelivered event notifications kept on this gateway's disk, e.g. 1GiB; past it new events are refused (logged and counted)"},
	}
}

// NotifyTargets parses the notification targets (checked by Validate).
func (c Config) NotifyTargets() ([]target.Spec, error) {
	return target.ParseSpecs(c.Notify.Webhooks.Items, c.Notify.NATS.Items, c.Notify.WebhookTokens.Items)
}

// validateNotify checks the notification settings.
func (c Config) validateNotify() []error {
	var errs []error
	if _, err := c.NotifyTargets(); err != nil {
		errs = append(errs, err)
	}
	if c.Notify.QueueMax != 0 && c.Notify.QueueMax < 1<<20 {
		errs = append(errs, fmt.Errorf("--notify-queue-max %d: want at least 1MiB", c.Notify.QueueMax))
	}
	return errs
}

// List is a repeatable flag of entries: each value given adds its
// space-separated entries (so that one JOG_* variable or config-file
// string holds several). A value from the command line replaces one from
// the environment.
type List struct {
	Items   []string
	replace bool // the items came from the environment
}

// String implements flag.Value: the entries, space-separated.
func (l *List) String() string { return strings.Join(l.Items, " ") }

// Get implements flag.Getter: a config file gives a List as a string.
func (l *List) Get() any { return l.String() }

// Set implements flag.Value.
func (l *List) Set(s string) error {
	if l.replace {
		l.Items, l.replace = nil, false
	}
	l.Items = append(l.Items, strings.Fields(s)...)
	return nil
}

// fromEnv marks the entries as the environment's: the command line's
// replace them.
func (l *List) fromEnv() { l.replace = true }

// Size is a flag of bytes (units.ParseSize: "1GiB", "512MB").
type Size int64

// String implements flag.Value.
func (s *Size) String() string { return strconv.FormatInt(int64(*s), 10) }

// Set implements flag.Value.
func (s *Size) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}
