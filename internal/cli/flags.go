package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/jogstore/jog/internal/config"
)

// parseFlags parses args into fs, whose usage writes to fs.Output(). Asked
// for help (-h, --help) it prints the usage on stdout and reports done
// with exit code 0, as GNU tools do; a bad flag prints the error and the
// usage on stderr: done, exit code 2. Either way -h shows no secret: the
// flags that hold one mask their defaults where they are registered
// (config.BindFlags, bindCredentials), and any password in a connection
// string is masked here (config.HelpDefault).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	fs.VisitAll(func(f *flag.Flag) { f.DefValue = config.HelpDefault(f.DefValue, false) })
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

// argsOf are a command's words after its flags as arguments: a word that
// looks like a flag ("-x", "--x") is one no flag set defined, an error, as
// flag.Parse's; "--" ends the flags, so that an argument may begin with -.
func argsOf(words []string) ([]string, error) {
	for i, w := range words {
		switch {
		case w == "--":
			return append(slices.Clone(words[:i]), words[i+1:]...), nil
		case len(w) > 1 && w[0] == '-':
			return nil, fmt.Errorf("flag provided but not defined: %s", w)
		}
	}
	return words, nil
}

// printHelp prints fs's usage on stdout: exit code 0.
func printHelp(fs *flag.FlagSet, stdout io.Writer) int {
	out := fs.Output()
	fs.SetOutput(stdout)
	fs.Usage()
	fs.SetOutput(out)
	return 0
}

// serverFlag defines --name on fl holding jog server's setting --setting:
// its default is the setting's JOG_* variable when set, else def.
func serverFlag(fl *flag.FlagSet, name, setting, def, usage string) *string {
	env := config.EnvName(setting)
	if v := config.Getenv(env); v != "" {
		def = v
	}
	return fl.String(name, def, usage+" (env "+env+")")
}

// dataDirFlag defines --data-dir on fl as jog server's, as every command
// on a data dir takes it.
func dataDirFlag(fl *flag.FlagSet, usage string) *string {
	return serverFlag(fl, "data-dir", "data-dir", config.Default().DataDir, usage)
}

// clientFlag is a flag of a client's credentials: its default is the first
// of its variables set (the AWS CLI's, then jog server's: config.EnvName).
type clientFlag struct {
	name, usage string
	vars        []string
	secret      bool // -h masks its default
}

// defaultEndpoint is the server a client command calls when neither
// --endpoint nor a variable names one: jog server's default address.
const defaultEndpoint = "http://127.0.0.1:9000"

// The client flags of jog admin, bench and cp: the server's endpoint and
// the credentials. The endpoint's variables are JOG's, then the one the
// AWS CLI and SDKs read (AWS_ENDPOINT_URL); --endpoint wins over both.
var (
	endpointFlag     = clientFlag{"endpoint", "the server's URL", []string{"JOG_ENDPOINT", "AWS_ENDPOINT_URL"}, false}
	accessKeyFlag    = clientFlag{"access-key", "access key", []string{"AWS_ACCESS_KEY_ID", config.EnvName("access-key")}, false}
	secretKeyFlag    = clientFlag{"secret-key", "secret key", []string{"AWS_SECRET_ACCESS_KEY", config.EnvName("secret-key")}, true}
	sessionTokenFlag = clientFlag{"session-token", "session token of temporary credentials", []string{"AWS_SESSION_TOKEN"}, true}
	regionFlag       = clientFlag{"region", "signing region", []string{"AWS_REGION", config.EnvName("region")}, false}
)

// bind registers the flag on fs bound to p: p keeps its value when none
// of the variables is set.
func (c clientFlag) bind(fs *flag.FlagSet, p *string) {
	if v := firstEnv(c.vars...); v != "" {
		*p = v
	}
	fs.StringVar(p, c.name, *p, c.usage+" (env "+strings.Join(c.vars, " or ")+")")
	fs.Lookup(c.name).DefValue = config.HelpDefault(*p, c.secret)
}

// bindCredentials registers the flags of a client's credentials and
// signing region on fs, their defaults from the environment as the AWS
// CLI's (else jog server's variables). A nil token: no --session-token.
func bindCredentials(fs *flag.FlagSet, access, secret, token, region *string) {
	accessKeyFlag.bind(fs, access)
	secretKeyFlag.bind(fs, secret)
	if token != nil {
		sessionTokenFlag.bind(fs, token)
	}
	regionFlag.bind(fs, region)
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
