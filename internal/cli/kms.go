package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/kms"
)

const kmsUsage = `Usage: jog admin kms <command> [flags] [ID]

Keys of the built-in KMS, which seal the data keys of encrypted objects
(SSE-S3: the key sse-s3; SSE-KMS: the key an upload names). They live in
the data dir, in kms-keys.json, their material sealed by the master key
(sse.key, or JOG_SSE_KEY when set; docs/OPERATIONS.md, "Encryption keys").
These commands work on the data dir itself, beside a running server,
which sees a change at its next request; rotate-master needs every server
on the data dir stopped.

  kms create [--description TEXT] ID
  kms list
  kms describe ID
  kms enable ID
  kms disable ID       objects sealed under the key cannot be read, nor
                       new ones written, until it is enabled (not sse-s3)
  kms rotate ID        a new key version seals the data keys of new
                       objects; older objects still open with theirs
  kms rotate-master    a new master key: every key version re-sealed under
                       it, no object rewritten; the old sse.key is kept as
                       sse.key.<time>. With JOG_SSE_KEY set, the new key is
                       printed (JOG_SSE_KEY=...) for you to set instead.

A key prints as labelled lines: KeyId, State (Enabled or Disabled),
Versions, Created, Rotated (the newest version's time), Description; list
prints one key a line under a header line; enable and disable confirm.
--json prints the same fields by name. ID: 1 to 64 of A-Z a-z 0-9 . _ -,
starting with a letter or digit.

Flags (after the command):
`

// kmsCommand is one command of jog admin kms: its arguments' names, and
// what it does with the data dir's KMS.
type kmsCommand struct {
	args []string
	run  func(ctx context.Context, c *kmsCall) error
	// flags registers the command's own flags, when it has some.
	flags func(fs *flag.FlagSet, c *kmsCall)
}

// kmsCall is one run of a kms command.
type kmsCall struct {
	dataDir     string
	description string
	args        []string
	errOut      io.Writer
	printer
}

var kmsCommands = map[string]kmsCommand{
	"create": {args: []string{"ID"}, run: kmsPrint(func(ctx context.Context, b *kms.Builtin, c *kmsCall) (kms.KeyInfo, error) {
		return b.Create(ctx, c.args[0], c.description)
	}), flags: func(fs *flag.FlagSet, c *kmsCall) {
		fs.StringVar(&c.description, "description", "", "what the key is for")
	}},
	"list":          {run: kmsList},
	"describe":      {args: []string{"ID"}, run: kmsPrint(byID((*kms.Builtin).Describe))},
	"enable":        {args: []string{"ID"}, run: kmsEnable(true)},
	"disable":       {args: []string{"ID"}, run: kmsEnable(false)},
	"rotate":        {args: []string{"ID"}, run: kmsPrint(byID((*kms.Builtin).Rotate))},
	"rotate-master": {run: rotateMaster},
}

// kmsNested are jog admin kms's commands.
func kmsNested() []string { return sortedKeys(kmsCommands) }

// runKMS runs "jog admin kms ...", printing with p (jog admin --json).
func runKMS(ctx context.Context, args []string, p printer, stderr io.Writer) int {
	stdout := p.out
	if len(args) == 0 || helpAsked(args[:1]) {
		if len(args) == 0 {
			fmt.Fprint(stderr, kmsUsage)
			return 2
		}
		fmt.Fprint(stdout, kmsUsage)
		return 0
	}
	cmd, ok := kmsCommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "jog admin: unknown command: kms %s\n\n%s", strings.Join(args, " "), kmsUsage)
		return 2
	}
	c := &kmsCall{errOut: stderr, printer: p}
	fs := flag.NewFlagSet("jog admin kms "+args[0], flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), kmsUsage); fs.PrintDefaults() }
	dataDir := dataDirFlag(fs, "the data dir whose keys to manage")
	fs.BoolVar(&c.json, "json", c.json, "print the answer as JSON: the fields by name")
	if cmd.flags != nil {
		cmd.flags(fs, c)
	}
	if code, done := parseFlags(fs, args[1:], stdout, stderr); done {
		return code
	}
	if helpAsked(fs.Args()) {
		return printHelp(fs, stdout)
	}
	if fs.NArg() != len(cmd.args) {
		fmt.Fprintf(stderr, "jog admin: wrong arguments: kms %s (want %s)\n\n", strings.Join(args, " "), strings.Join(append([]string{args[0]}, cmd.args...), " "))
		fs.Usage()
		return 2
	}
	c.dataDir, c.args = *dataDir, fs.Args()
	if err := cmd.run(ctx, c); err != nil {
		fmt.Fprintln(stderr, "jog admin:", err)
		return 1
	}
	return 0
}

// open returns the data dir's KMS, as the server opens it.
func (c *kmsCall) open(ctx context.Context) (*kms.Builtin, error) {
	return kms.OpenDataDir(ctx, c.dataDir, os.Getenv(kms.MasterKeyEnv))
}

// kmsPrint runs op on the data dir's KMS and prints the key it returns.
func kmsPrint(op func(ctx context.Context, b *kms.Builtin, c *kmsCall) (kms.KeyInfo, error)) func(context.Context, *kmsCall) error {
	return func(ctx context.Context, c *kmsCall) error {
		b, err := c.open(ctx)
		if err != nil {
			return err
		}
		k, err := op(ctx, b, c)
		if err != nil {
			return err
		}
		return c.printOne(keyFields(k), kmsKeyFields)
	}
}

// byID is a KMS method on the key the argument names.
func byID(m func(b *kms.Builtin, ctx context.Context, id string) (kms.KeyInfo, error)) func(context.Context, *kms.Builtin, *kmsCall) (kms.KeyInfo, error) {
	return func(ctx context.Context, b *kms.Builtin, c *kmsCall) (kms.KeyInfo, error) {
		return m(b, ctx, c.args[0])
	}
}

func kmsList(ctx context.Context, c *kmsCall) error {
	b, err := c.open(ctx)
	if err != nil {
		return err
	}
	keys, err := b.List(ctx)
	if err != nil {
		return err
	}
	rows := make([][]string, len(keys))
	for i, k := range keys {
		rows[i] = keyFields(k)
	}
	return c.printList("KMS keys", rows, kmsKeyFields)
}

func kmsEnable(enabled bool) func(context.Context, *kmsCall) error {
	return func(ctx context.Context, c *kmsCall) error {
		b, err := c.open(ctx)
		if err != nil {
			return err
		}
		if err := b.SetEnabled(ctx, c.args[0], enabled); err != nil {
			return err
		}
		action, done := "DisableKey", "disabled key "
		if enabled {
			action, done = "EnableKey", "enabled key "
		}
		return c.printDone(action, kmsKeyFields[:1], c.args, done+c.args[0])
	}
}

// kmsKeyFields are the fields of a key jog admin kms prints (keyFields).
var kmsKeyFields = []string{"KeyId", "State", "Versions", "Created", "Rotated", "Description"}

// keyFields is a key's kmsKeyFields.
func keyFields(k kms.KeyInfo) []string {
	state := "Enabled"
	if !k.Enabled {
		state = "Disabled"
	}
	return []string{k.ID, state, strconv.FormatUint(uint64(k.Version), 10), k.Created.Format(time.RFC3339), k.Rotated.Format(time.RFC3339), k.Description}
}

func rotateMaster(ctx context.Context, c *kmsCall) error {
	r, err := kms.RotateMaster(ctx, c.dataDir, os.Getenv(kms.MasterKeyEnv))
	if errors.Is(err, datadir.ErrLocked) {
		return fmt.Errorf("%w (rotate-master re-seals the keys every server holds: stop them, rotate, start them)", err)
	}
	if err != nil {
		return err
	}
	switch {
	case c.json:
		err = c.printJSON(r)
	case r.NewKey == "":
		fmt.Fprintf(c.out, "%d key versions re-sealed under a new %s; the old master key is in %s: keep it as long as backups of %s taken before now, and with them.\n", r.Versions, kms.MasterKeyFile, r.Backup, kms.KeysFile)
	default:
		// The new key goes to stdout alone; what to do with it to stderr.
		fmt.Fprintf(c.out, "%s=%s\n", kms.MasterKeyEnv, r.NewKey)
	}
	if r.NewKey != "" {
		fmt.Fprintf(c.errOut, "%d key versions re-sealed under the new master key. Set %s to it for every jog server and jog admin kms on this data dir before they start: the old value no longer opens the keys. Until the first start under it, it is also kept in %s (mode 0600), which that start removes.\n", r.Versions, kms.MasterKeyEnv, r.Staging)
	}
	return err
}
