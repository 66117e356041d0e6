//go:build unix

package integration

// What jog cp leaves for people and scripts: a downloaded file's mode
// follows the umask, and a copy run with its output to a pipe or file
// prints one summary line.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestCpDownloadUmask downloads under umask 022 and 077: the file gets
// 0644 and 0600, as aws s3 cp's would, one part or many.
func TestCpDownloadUmask(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpm")
	itest.Put(t, c, "cpm", "small", []byte("small"))
	mustCp(t, srv.URL, writeTemp(t, itest.RandBytes(5, 2*cpPart+1)), "s3://cpm/big")
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := t.TempDir()
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}, {0o002, 0o664}} {
		syscall.Umask(tc.umask)
		for _, key := range []string{"small", "big"} {
			dst := filepath.Join(dir, key+"."+tc.want.String())
			mustCp(t, srv.URL, "s3://cpm/"+key, dst)
			st, err := os.Stat(dst)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != tc.want {
				t.Errorf("umask %03o: %s downloaded with mode %v, want %v", tc.umask, key, got, tc.want)
			}
		}
	}
}

// writeTemp writes b to a new file and returns its path.
func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	writeFile(t, p, b)
	return p
}

// TestCpSummary runs jog cp with its standard output to a buffer (no
// terminal): one line says how many files and bytes were copied, at what
// rate, and that each was verified; a failed copy still says what it did.
func TestCpSummary(t *testing.T) {
	srv, _ := itest.StartBucket(t, "cps")
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "a"), itest.RandBytes(1, 1<<20))
	writeFile(t, filepath.Join(src, "sub/b"), itest.RandBytes(2, 2*cpPart+1))
	writeFile(t, filepath.Join(src, "sub/c"), nil)
	line := `^copied %s, %s in [0-9.]+m?s \([0-9.]+ [KMG]?i?B/s\), %s\n$`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-r", src, "s3://cps/t"}, fmt.Sprintf(line, "3 files", `11\.0 MiB`, "all verified")},
		{[]string{"s3://cps/t/a", filepath.Join(t.TempDir(), "a")}, fmt.Sprintf(line, "1 file", `1\.0 MiB`, "all verified")},
		{[]string{"-r", "s3://cps/t/", t.TempDir()}, fmt.Sprintf(line, "3 files", `11\.0 MiB`, "all verified")},
		{[]string{"-r", "s3://cps/t/", "s3://cps/copy/"}, fmt.Sprintf(line, "3 files", `11\.0 MiB`, "all verified")},
		{[]string{"s3://cps/none", filepath.Join(t.TempDir(), "x")}, fmt.Sprintf(line, "0 files", "0 B", "nothing to verify")},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"cp", "--endpoint", srv.URL, "--access-key", testutil.AccessKey, "--secret-key", testutil.SecretKey,
			"--region", testutil.Region, "--part-size", "5MiB"}, tc.args...)
		cli.Run(context.Background(), args, &stdout, &stderr)
		if !regexp.MustCompile(tc.want).MatchString(stdout.String()) {
			t.Errorf("jog cp %v: stdout %q, want /%s/ (stderr %q)", tc.args, stdout.String(), tc.want, stderr.String())
		}
	}
}
