//go:build unix

package integration

// What jog cp leaves for people and scripts: a downloaded file's mode
// follows the umask.

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

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
