package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"slices"

	"github.com/jogstore/jog/internal/config"
)

// parseFlags parses args into fs, whose usage writes to fs.Output(). Asked
// for help (-h, --help) it prints the usage on stdout and reports done
// with exit code 0, as GNU tools do; a bad flag prints the error and the
// usage on stderr: done, exit code 2. Either way -h shows no secret: the
// default of a secret flag, taken from the environment, is masked
// (config.HelpDefault).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	fs.VisitAll(func(f *flag.Flag) { f.DefValue = config.HelpDefault(f.Name, f.DefValue) })
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		_, _ = stdout.Write(out.Bytes())
		return 0, true
	case err != nil:
		_, _ = stderr.Write(out.Bytes())
		return 2, true
	}
	return 0, false
}

// helpAsked reports whether a command's words after its flags (jog admin
// user create -h) ask for help.
func helpAsked(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return w == "-h" || w == "-help" || w == "--help" })
}

// printHelp prints fs's usage on stdout: exit code 0.
func printHelp(fs *flag.FlagSet, stdout io.Writer) int {
	out := fs.Output()
	fs.SetOutput(stdout)
	fs.Usage()
	fs.SetOutput(out)
	return 0
}

// bindCredentials registers the flags of a client's credentials and
// signing region on fs, their defaults from the environment as the AWS
// CLI's (else JOG server's variables); region keeps its value when no
// variable names one. A nil token: no --session-token.
func bindCredentials(fs *flag.FlagSet, access, secret, token, region *string) {
	*access = firstEnv("AWS_ACCESS_KEY_ID", "JOG_ACCESS_KEY")
	*secret = firstEnv("AWS_SECRET_ACCESS_KEY", "JOG_SECRET_KEY")
	if r := firstEnv("AWS_REGION", "JOG_REGION"); r != "" {
		*region = r
	}
	fs.StringVar(access, "access-key", *access, "access key (env AWS_ACCESS_KEY_ID or JOG_ACCESS_KEY)")
	fs.StringVar(secret, "secret-key", *secret, "secret key (env AWS_SECRET_ACCESS_KEY or JOG_SECRET_KEY)")
	if token != nil {
		*token = os.Getenv("AWS_SESSION_TOKEN")
		fs.StringVar(token, "session-token", *token, "session token of temporary credentials (env AWS_SESSION_TOKEN)")
	}
	fs.StringVar(region, "region", *region, "signing region (env AWS_REGION or JOG_REGION)")
}

// firstEnv is the first of the variables names that is set.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}
