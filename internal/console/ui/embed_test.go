package ui

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(FS, "dist/js", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".js") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	consoleRef = regexp.MustCompile(`(?:href|src)="/console/([^"]+)"`)
	preloadRef = regexp.MustCompile(`rel="modulepreload" href="/console/([^"]+)"`)
	importRef  = regexp.MustCompile(`(?m)^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)';`)
)

// TestIndexReferences: every asset index.html names is embedded, and every
// module is preloaded (so the browser fetches them in one round, not a
// waterfall of imports).
func TestIndexReferences(t *testing.T) {
	index := read(t, "dist/index.html")
	for _, m := range consoleRef.FindAllStringSubmatch(index, -1) {
		if _, err := fs.Stat(FS, "dist/"+m[1]); err != nil {
			t.Errorf("index.html names /console/%s, which is not embedded", m[1])
		}
	}
	var preloaded []string
	for _, m := range preloadRef.FindAllStringSubmatch(index, -1) {
		preloaded = append(preloaded, "dist/"+m[1])
	}
	for _, js := range jsFiles(t) {
		if js != "dist/js/main.js" && !slices.Contains(preloaded, js) {
			t.Errorf("%s is not preloaded by index.html", js)
		}
	}
}

// TestImportsResolve: every relative import of every module names an
// embedded file.
func TestImportsResolve(t *testing.T) {
	for _, js := range jsFiles(t) {
		src := read(t, js)
		for _, m := range importRef.FindAllStringSubmatch(src, -1) {
			target := path.Join(path.Dir(js), m[1])
			if _, err := fs.Stat(FS, target); err != nil {
				t.Errorf("%s imports %s: %s is not embedded", js, m[1], target)
			}
		}
	}
}

// TestStrictCSP: nothing a Content-Security-Policy of default-src 'self'
// (no 'unsafe-inline', no 'unsafe-eval') would block: no inline script,
// style element or attribute, no event-handler attributes, no eval, no HTML
// strings parsed into the page.
func TestStrictCSP(t *testing.T) {
	index := read(t, "dist/index.html")
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]+</script>`),
		regexp.MustCompile(`<style`),
		regexp.MustCompile(`\sstyle=`),
		regexp.MustCompile(`\son[a-z]+=`),
		regexp.MustCompile(`(?:src|href)="(?:https?:)?//`),
	} {
		if bad.MatchString(index) {
			t.Errorf("index.html matches %s", bad)
		}
	}
	jsBad := []*regexp.Regexp{
		regexp.MustCompile(`\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write`),
		regexp.MustCompile(`\beval\(|new Function\(`),
		regexp.MustCompile(`setAttribute\('style'|'style':|\bstyle: `),
		regexp.MustCompile(`https?://(?:[a-z0-9-]+\.)+(?:com|org|net|io)/`),
	}
	for _, js := range jsFiles(t) {
		src := read(t, js)
		for _, bad := range jsBad {
			for _, line := range strings.Split(src, "\n") {
				if bad.MatchString(line) && !strings.Contains(line, "amazonaws.com/doc/") && !strings.Contains(line, "www.w3.org/2000/svg") {
					t.Errorf("%s: %q matches %s", js, strings.TrimSpace(line), bad)
				}
			}
		}
	}
}

// TestFilesSmall keeps every source file under the house limit of 800 lines.
func TestFilesSmall(t *testing.T) {
	err := fs.WalkDir(FS, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if n := strings.Count(read(t, p), "\n"); n > 800 {
			t.Errorf("%s has %d lines", p, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUnitJS runs the front end's unit tests (npm test: node --test) when
// node and the dev dependency are installed (`npm ci` in this directory);
// CI runs `npm ci && npm test` here itself (docs/CONSOLE-ui.md).
func TestUnitJS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat("node_modules/@xmldom/xmldom"); err != nil {
		t.Skip("run npm ci in internal/console/ui first")
	}
	cmd := exec.Command(node, "--test", "test/")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}
