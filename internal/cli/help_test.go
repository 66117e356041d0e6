package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/config"
)

// helpPaths are every command of jog, nested ones too ("admin user
// create"), as the command tables list them.
func helpPaths() [][]string {
	var paths [][]string
	for _, c := range commands {
		paths = append(paths, []string{c.name})
		if c.nested != nil {
			for _, n := range c.nested() {
				paths = append(paths, append([]string{c.name}, strings.Fields(n)...))
			}
		}
	}
	return paths
}

// TestHelpShowsNoSecret: with every variable holding a secret set (jog
// server's, those of the clients' secret flags: the AWS SDK's, jog notify
// listen's token; and connection strings with a password), -h and --help
// of every command and nested command print the usage on stdout, exit 0,
// and show none of the secrets.
func TestHelpShowsNoSecret(t *testing.T) {
	secrets := map[string]string{}
	for _, v := range slices.Concat(config.SecretVars(), secretKeyFlag.vars, sessionTokenFlag.vars, listenTokenFlag.vars) {
		secrets[v] = "marker-" + strings.ToLower(v)
	}
	// Settings whose value may hold a password.
	secrets["JOG_META"] = "postgres://jog:marker-meta-password@db/jog"
	secrets["JOG_NOTIFY_NATS"] = "n1=nats://u:marker-nats-password@nats:4222/events"
	// A replication target's secret key is in a variable of its own, no
	// row of the settings table's (config.ReplicationKeyVars).
	t.Setenv("JOG_REPLICATION_TARGET", "dr=https://backup.example:9000")
	_, drSecret := config.ReplicationKeyVars("dr")
	secrets[drSecret] = "marker-replication-dr-secret"
	for v, s := range secrets {
		t.Setenv(v, s)
	}
	if len(secrets) < 6 {
		t.Fatalf("only %d secret variables: %v", len(secrets), secrets)
	}
	paths := helpPaths()
	if len(paths) < 40 {
		t.Fatalf("only %d commands to walk: %v", len(paths), paths)
	}
	for _, path := range paths {
		for _, h := range []string{"-h", "--help"} {
			args := append(append([]string(nil), path...), h)
			var out, errs bytes.Buffer
			code := Run(context.Background(), args, &out, &errs)
			for v, s := range secrets {
				if strings.Contains(out.String()+errs.String(), s) {
					t.Errorf("jog %s shows %s", strings.Join(args, " "), v)
				}
			}
			if code != 0 || out.Len() == 0 || errs.Len() != 0 {
				t.Errorf("jog %s: exit %d, %d bytes on stdout, stderr %q; want 0, the usage on stdout", strings.Join(args, " "), code, out.Len(), errs.String())
			}
		}
	}
}

// TestUnknownFlag: an unknown flag of every command and nested command
// exits 2 with the error and the usage on stderr, nothing on stdout; no
// command takes it for an argument.
func TestUnknownFlag(t *testing.T) {
	for _, path := range helpPaths() {
		args := append(append([]string(nil), path...), "--no-such-flag")
		var out, errs bytes.Buffer
		code := Run(context.Background(), args, &out, &errs)
		if code != 2 || out.Len() != 0 || !strings.Contains(errs.String(), "no-such-flag") || !strings.Contains(errs.String(), "Usage") {
			t.Errorf("jog %s: exit %d, stdout %q, stderr %.200q; want 2, the error and the usage on stderr", strings.Join(args, " "), code, out.String(), errs.String())
		}
	}
}
