package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/kms"
)

// runKMSCmd runs jog admin kms args on dir and returns its exit code,
// stdout and stderr.
func runKMSCmd(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	argv := append([]string{"admin", "kms", args[0], "--data-dir", dir}, args[1:]...)
	var out, errs bytes.Buffer
	code := Run(context.Background(), argv, &out, &errs)
	return code, out.String(), errs.String()
}

// mustKMS runs a jog admin kms command that must succeed; it returns
// stdout.
func mustKMS(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, out, errs := runKMSCmd(t, dir, args...)
	if code != 0 {
		t.Fatalf("jog admin kms %s: exit %d, %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// keyRow is the fields of a key as jog admin kms prints it, labelled.
func keyRow(t *testing.T, out string) []string {
	t.Helper()
	labels := []string{"KeyId", "State", "Versions", "Created", "Rotated", "Description"}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(labels) {
		t.Fatalf("key %q: want %d labelled lines", out, len(labels))
	}
	row := make([]string, len(lines))
	for i, l := range lines {
		v, ok := strings.CutPrefix(l, labels[i]+": ")
		if !ok {
			t.Fatalf("key %q: line %d is not %s's", out, i+1, labels[i])
		}
		row[i] = v
	}
	return row
}

// TestKMSCommands: create, list, describe, rotate, disable and enable
// print and change what they say; the SSE-S3 key cannot be disabled; a
// missing key and bad arguments fail.
func TestKMSCommands(t *testing.T) {
	t.Setenv(kms.MasterKeyEnv, "")
	dir := t.TempDir()
	row := keyRow(t, mustKMS(t, dir, "create", "--description", "team a", "teama"))
	if row[0] != "teama" || row[1] != "Enabled" || row[2] != "1" || row[5] != "team a" {
		t.Errorf("create printed %q", row)
	}
	list := mustKMS(t, dir, "list")
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != 3 || lines[0] != "KeyId\tState\tVersions\tCreated\tRotated\tDescription" ||
		!strings.HasPrefix(lines[1], kms.SSES3KeyID+"\t") || !strings.HasPrefix(lines[2], "teama\t") {
		t.Errorf("list = %q; want a header, sse-s3 and teama", list)
	}
	var keys []map[string]string
	if err := json.Unmarshal([]byte(mustKMS(t, dir, "list", "--json")), &keys); err != nil || len(keys) != 2 || keys[1]["KeyId"] != "teama" || keys[1]["Description"] != "team a" {
		t.Errorf("list --json = %v, %v", keys, err)
	}
	if row := keyRow(t, mustKMS(t, dir, "rotate", "teama")); row[2] != "2" {
		t.Errorf("rotate printed %q; want version 2", row)
	}
	if out := mustKMS(t, dir, "disable", "teama"); out != "disabled key teama\n" {
		t.Errorf("disable printed %q", out)
	}
	if row := keyRow(t, mustKMS(t, dir, "describe", "teama")); row[1] != "Disabled" || row[2] != "2" {
		t.Errorf("describe after disable = %q", row)
	}
	mustKMS(t, dir, "enable", "teama")
	var key map[string]string
	if err := json.Unmarshal([]byte(mustKMS(t, dir, "describe", "teama", "--json")), &key); err != nil || key["KeyId"] != "teama" || key["State"] != "Enabled" {
		t.Errorf("describe --json after enable = %v, %v", key, err)
	}

	fails := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"disable", kms.SSES3KeyID}, 1, "cannot be disabled"},
		{[]string{"describe", "nope"}, 1, "does not exist"},
		{[]string{"create", "teama"}, 1, "exists"},
		{[]string{"create", "bad/id"}, 1, "Invalid keyId"},
		{[]string{"describe"}, 2, "wrong arguments"},
		{[]string{"frobnicate"}, 2, "unknown command"},
	}
	for _, f := range fails {
		code, _, errs := runKMSCmd(t, dir, f.args...)
		if code != f.code || !strings.Contains(errs, f.msg) {
			t.Errorf("jog admin kms %s: exit %d, %q; want %d, %q", strings.Join(f.args, " "), code, errs, f.code, f.msg)
		}
	}
	if row := keyRow(t, mustKMS(t, dir, "describe", kms.SSES3KeyID)); row[1] != "Enabled" {
		t.Errorf("sse-s3 after a refused disable: %q", row)
	}
}

// TestKMSBesideRunningServer: a KMS opened before the commands run (as a
// running server's) uses a key the CLI creates, refuses one it disables,
// and seals new data keys under the version it rotates to, with no
// reopen. The server's side is kms.OpenDataDir, as the server opens it;
// test/integration's TestSSEKMSAdminBesideServer does it over the real
// server.
func TestKMSBesideRunningServer(t *testing.T) {
	t.Setenv(kms.MasterKeyEnv, "")
	ctx := context.Background()
	dir := t.TempDir()
	server, err := kms.OpenDataDir(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	ec := kms.ObjectContext("bkt", "obj", nil)
	if _, err := server.GenerateDataKey(ctx, "teama", ec); !errors.Is(err, kms.ErrNotFound) {
		t.Fatalf("before create: %v; want ErrNotFound", err)
	}

	mustKMS(t, dir, "create", "teama")
	dk, err := server.GenerateDataKey(ctx, "teama", ec)
	if err != nil {
		t.Fatalf("a key the CLI created: %v", err)
	}

	mustKMS(t, dir, "disable", "teama")
	if _, err := server.Decrypt(ctx, "teama", dk.Sealed, ec); !errors.Is(err, kms.ErrDisabled) {
		t.Errorf("Decrypt under a key the CLI disabled = %v; want ErrDisabled", err)
	}
	if _, err := server.GenerateDataKey(ctx, "teama", ec); !errors.Is(err, kms.ErrDisabled) {
		t.Errorf("GenerateDataKey under a key the CLI disabled = %v; want ErrDisabled", err)
	}

	mustKMS(t, dir, "enable", "teama")
	mustKMS(t, dir, "rotate", "teama")
	if got, err := server.Decrypt(ctx, "teama", dk.Sealed, ec); err != nil || !bytes.Equal(got, dk.Plaintext) {
		t.Errorf("an older data key after rotate: %v", err)
	}
	dk2, err := server.GenerateDataKey(ctx, "teama", ec)
	if err != nil {
		t.Fatal(err)
	}
	if sk, err := kms.ParseSealed(dk2.Sealed); err != nil || sk.Version != 2 {
		t.Errorf("a data key sealed after the CLI's rotate: %+v, %v; want version 2", sk, err)
	}
}

// TestKMSRotateMaster: rotate-master keeps the old sse.key as a backup,
// and every data key opens under the new one; with JOG_SSE_KEY set it
// prints the new key alone on stdout; while a server holds the data dir
// it refuses and says to stop it.
func TestKMSRotateMaster(t *testing.T) {
	ctx := context.Background()
	t.Setenv(kms.MasterKeyEnv, "")
	dir := t.TempDir()
	mustKMS(t, dir, "create", "teama")
	b, err := kms.OpenDataDir(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	ec := kms.ObjectContext("bkt", "obj", nil)
	dk, err := b.GenerateDataKey(ctx, "teama", ec)
	if err != nil {
		t.Fatal(err)
	}

	release, err := datadir.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runKMSCmd(t, dir, "rotate-master"); code != 1 || !strings.Contains(errs, "stop") {
		t.Errorf("rotate-master beside a server: exit %d, %q; want 1 and to stop it", code, errs)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}

	out := mustKMS(t, dir, "rotate-master")
	backups, _ := filepath.Glob(filepath.Join(dir, kms.MasterKeyFile+".*"))
	if len(backups) != 1 || !strings.Contains(out, backups[0]) {
		t.Errorf("rotate-master printed %q, backups %v; want it to name the one backup", out, backups)
	}
	reopen := func(env string) {
		t.Helper()
		b, err := kms.OpenDataDir(ctx, dir, env)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := b.Decrypt(ctx, "teama", dk.Sealed, ec); err != nil || !bytes.Equal(got, dk.Plaintext) {
			t.Fatalf("data key after rotate-master: %v", err)
		}
	}
	reopen("")

	// From the variable: stdout is the assignment, nothing else.
	key, err := keyring.ReadKeyFile(filepath.Join(dir, kms.MasterKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(kms.MasterKeyEnv, base64.StdEncoding.EncodeToString(key))
	code, out, errs := runKMSCmd(t, dir, "rotate-master")
	newKey, ok := strings.CutPrefix(strings.TrimSuffix(out, "\n"), kms.MasterKeyEnv+"=")
	if code != 0 || !ok || strings.Contains(newKey, "\n") || !strings.Contains(errs, "Set "+kms.MasterKeyEnv) {
		t.Fatalf("rotate-master under %s: exit %d, stdout %d lines, stderr %q", kms.MasterKeyEnv, code, strings.Count(out, "\n"), errs)
	}
	if strings.Contains(errs, newKey) {
		t.Error("rotate-master shows the new key on stderr")
	}
	reopen(newKey)

	// --json: the same by name, stdout one JSON document.
	t.Setenv(kms.MasterKeyEnv, newKey)
	var r struct {
		Versions int
		NewKey   string
	}
	if err := json.Unmarshal([]byte(mustKMS(t, dir, "rotate-master", "--json")), &r); err != nil || r.Versions < 2 || r.NewKey == "" || r.NewKey == newKey {
		t.Fatalf("rotate-master --json: %+v, %v", r, err)
	}
	reopen(r.NewKey)
}

// TestKMSRefusesExposedMasterKey: the commands do not run over an sse.key
// the group or others may read, and say how to fix it.
func TestKMSRefusesExposedMasterKey(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no group or other modes")
	}
	t.Setenv(kms.MasterKeyEnv, "")
	dir := t.TempDir()
	mustKMS(t, dir, "list")
	path := filepath.Join(dir, kms.MasterKeyFile)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"list"}, {"create", "k"}, {"rotate-master"}} {
		if code, _, errs := runKMSCmd(t, dir, cmd...); code != 1 || !strings.Contains(errs, "chmod 600 "+path) {
			t.Errorf("jog admin kms %s over a 0644 %s: exit %d, %q; want 1 and chmod 600", cmd[0], kms.MasterKeyFile, code, errs)
		}
	}
}
