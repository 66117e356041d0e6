package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jogstore/jog/internal/notify/target"
	"github.com/jogstore/jog/internal/units"
)

// Notify holds the settings of bucket event notifications (internal/notify,
// docs/NOTIFICATIONS.md): the targets buckets may name, and the bound of
// the durable queue of deliveries.
type Notify struct {
	// Targets and Tokens hold, by kind (target.Kinds), the "ID=URL"
	// entries of --notify-<kind> and the "ID=TOKEN" entries of
	// --notify-<kind>-token (a secret: its row of the settings table says
	// so, and --print-config masks it).
	Targets, Tokens Lists
	// QueueMax bounds the bytes of the queue on this gateway's disk
	// (durq.Options.MaxBytes): past it events are refused (logged,
	// counted) rather than stored; 0 leaves the queue's own default.
	QueueMax Size
}

// settings are the notification rows of the settings table: two for each
// kind of target (one for a kind without a token), then the queue's bound.
func (n *Notify) settings() []setting {
	var rows []setting
	for _, k := range target.Kinds() {
		rows = append(rows, setting{name: k.Flag(), ptr: n.Targets.Of(k.Name), usage: k.FlagUsage()})
		if k.Token {
			rows = append(rows, setting{name: k.TokenFlag(), ptr: n.Tokens.Of(k.Name), usage: k.TokenUsage(), secret: true})
		}
	}
	return append(rows, setting{name: "notify-queue-max", ptr: &n.QueueMax, usage: "most bytes of undelivered event notifications kept on this gateway's disk, e.g. 1GiB; past it new events are refused (logged and counted)"})
}

// Lists are flags of entries by kind of target.
type Lists map[string]*List

// Of is the list of a kind (target.Webhook, target.NATS), made empty if
// there is none yet.
func (ls *Lists) Of(kind string) *List {
	if *ls == nil {
		*ls = Lists{}
	}
	if (*ls)[kind] == nil {
		(*ls)[kind] = &List{}
	}
	return (*ls)[kind]
}

// items are the entries by kind.
func (ls Lists) items() map[string][]string {
	m := make(map[string][]string, len(ls))
	for k, l := range ls {
		m[k] = l.Items
	}
	return m
}

// String shows the entries by kind, in the order of the kinds' names.
func (ls Lists) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(ls)) {
		fmt.Fprintf(&b, "%s:%q ", k, ls[k].Items)
	}
	return strings.TrimSuffix(b.String(), " ")
}

// NotifyTargets parses the notification targets (checked by Validate).
func (c Config) NotifyTargets() ([]target.Spec, error) {
	return target.ParseSpecs(c.Notify.Targets.items(), c.Notify.Tokens.items())
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

// String implements flag.Value: the size in the largest unit that holds it
// exactly ("1GiB", "512MB", "1000"), which Set reads back (--print-config
// writes it).
func (s *Size) String() string { return units.Exact(int64(*s)) }

// Set implements flag.Value.
func (s *Size) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}
