package cli

import (
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// TestWarnSecretInArgv: a server started with --meta holding a password
// on its command line logs one warning naming the flag, never the
// password; the same connection string in JOG_META starts it without one.
func TestWarnSecretInArgv(t *testing.T) {
	c := pgtest.Own(t)
	const password = "pw-in-argv-7f3a"
	// The cluster trusts local connections: the password is carried, not
	// checked.
	withPassword := func() string { return strings.Replace(c.NewDatabase(t), "://jog@", "://jog:"+password+"@", 1) }

	var argv, env testutil.SyncBuffer
	startServer(t, &argv, "--meta", withPassword())
	if n := strings.Count(argv.String(), "level=WARN msg=\"secrets on the command line"); n != 1 || !strings.Contains(argv.String(), "flags=--meta") {
		t.Errorf("--meta with a password: %d warnings naming --meta, want 1:\n%s", n, argv.String())
	}
	if strings.Contains(argv.String(), password) {
		t.Errorf("the log shows the password:\n%s", argv.String())
	}

	t.Setenv("JOG_META", withPassword())
	startServer(t, &env)
	if strings.Contains(env.String(), "secrets on the command line") || !strings.Contains(env.String(), "metadata in PostgreSQL") {
		t.Errorf("JOG_META with a password: want PostgreSQL metadata and no warning:\n%s", env.String())
	}
}
