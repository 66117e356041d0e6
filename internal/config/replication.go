package config

import (
	"fmt"
	"strings"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/iam/keyring"
)

// Replication holds the settings of bucket replication (internal/bucketrepl,
// docs/adr/0030-replication-targets.md): the remote S3 endpoints rules may
// name, and their keys.
type Replication struct {
	// Targets are the "NAME=URL" entries of --replication-target.
	Targets List
	// Credentials are "NAME=ACCESS_KEY:SECRET_KEY" entries (a secret: its
	// row says so, and --print-config masks it), meant for the config
	// file; JOG_REPLICATION_<NAME>_ACCESS_KEY and _SECRET_KEY override
	// them (ReplicationKeyVars).
	Credentials List
	// QueueMax bounds the bytes of the replication queue on this
	// gateway's disk (durq.Options.MaxBytes): past it a write still
	// succeeds and its version stays PENDING until the queue's sweep; 0
	// leaves the queue's own default.
	QueueMax Size

	getenv func(string) string // BindFlags's, for the per-target variables
}

// settings are the replication rows of the settings table.
func (r *Replication) settings() []setting {
	return []setting{
		{name: "replication-target", ptr: &r.Targets, usage: "remote S3 endpoint bucket replication rules may name, NAME=URL with URL http(s)://host[:port], or …/BUCKET to serve that bucket alone; repeatable; its keys come from the JOG_REPLICATION_<NAME>_* variables or the config file (docs/OPERATIONS.md, Replication targets)"},
		{name: "replication-target-credentials", ptr: &r.Credentials, usage: "keys of replication targets, NAME=ACCESS_KEY:SECRET_KEY, repeatable (prefer the config file or the JOG_REPLICATION_<NAME>_* variables: a flag shows in process listings)", secret: true},
		{name: "replication-queue-max", ptr: &r.QueueMax, usage: "most bytes of replication tasks kept on this gateway's disk, e.g. 1GiB; past it writes still succeed and their versions stay PENDING until the next sweep"},
	}
}

// ReplicationKeyVars are the variables holding the keys of replication
// target name: JOG_REPLICATION_DR_1_ACCESS_KEY and …_SECRET_KEY for dr-1.
func ReplicationKeyVars(name string) (access, secret string) {
	p := "JOG_REPLICATION_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	return p + "_ACCESS_KEY", p + "_SECRET_KEY"
}

// ReplicationTargets parses the replication targets with their keys
// (checked by Validate): every target needs both keys, from its variables
// or else from --replication-target-credentials.
func (c Config) ReplicationTargets() (bucketrepl.Targets, error) {
	ts, err := bucketrepl.ParseTargets(c.Replication.Targets.Items)
	if err != nil {
		return nil, err
	}
	keys := map[string][2]string{}
	for _, e := range c.Replication.Credentials.Items {
		name, pair, ok := strings.Cut(e, "=")
		access, secret, ok2 := strings.Cut(pair, ":")
		if !ok || !ok2 || access == "" || secret == "" {
			// Never the entry itself: it holds a secret.
			return nil, fmt.Errorf("--replication-target-credentials: an entry for %q is not NAME=ACCESS_KEY:SECRET_KEY", name)
		}
		if _, ok := ts.Named(name); !ok {
			return nil, fmt.Errorf("--replication-target-credentials: %q is no --replication-target", name)
		}
		keys[name] = [2]string{access, secret}
	}
	getenv := c.Replication.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	for i, t := range ts {
		av, sv := ReplicationKeyVars(t.Name)
		k := keys[t.Name]
		if a, s := getenv(av), getenv(sv); a != "" || s != "" {
			k = [2]string{a, s}
		}
		if k[0] == "" || k[1] == "" {
			return nil, fmt.Errorf("replication target %s needs keys: set %s and %s, or give --replication-target-credentials in the config file", t.Name, av, sv)
		}
		ts[i].AccessKey, ts[i].SecretKey = k[0], keyring.NewSecret(k[1])
	}
	return ts, nil
}

// validateReplication checks the replication settings.
func (c Config) validateReplication() []error {
	if _, err := c.ReplicationTargets(); err != nil {
		return []error{err}
	}
	return nil
}
