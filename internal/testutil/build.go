package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildJog builds the jog binary into dir as it is released (a static
// CGO_ENABLED=0 binary), for tests that run real server processes.
func BuildJog(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "jog")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/jogstore/jog/cmd/jog")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
