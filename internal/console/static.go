package console

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// hashedName matches the file names of a build's fingerprinted assets
// under assets/ (assets/app-3f9a1c2e.js, assets/index.B4xk_9Qz.css):
// their content never changes under that name, so browsers may keep
// them for a year. Any other file is revalidated (ETag).
var hashedName = regexp.MustCompile(`[.-][A-Za-z0-9_]{8,}\.[a-z0-9]+$`)

// static serves the UI's files: from memory, with an ETag, a gzip copy of
// the compressible ones (made on first use), and the security headers.
type static struct {
	files  fs.FS
	once   sync.Once
	byName map[string]*asset
	dirs   map[string]bool // top-level directories: a missing file there is 404, not the page
}

type asset struct {
	body, gz    []byte
	etag, ctype string
	immutable   bool
}

func newStatic(files fs.FS) *static { return &static{files: files} }

// load reads every file once.
func (s *static) load() {
	s.byName, s.dirs = make(map[string]*asset), make(map[string]bool)
	_ = fs.WalkDir(s.files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name != "." && !strings.Contains(name, "/") {
				s.dirs[name] = true
			}
			return nil
		}
		body, err := fs.ReadFile(s.files, name)
		if err != nil {
			return nil
		}
		sum := sha256.Sum256(body)
		a := &asset{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, immutable: strings.HasPrefix(name, "assets/") && hashedName.MatchString(name)}
		a.ctype = mime.TypeByExtension(path.Ext(name))
		if a.ctype == "" {
			a.ctype = http.DetectContentType(body)
		}
		if compressible(a.ctype) && len(body) > 512 {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			_, _ = zw.Write(body)
			zw.Close()
			if b.Len() < len(body)*9/10 {
				a.gz = b.Bytes()
			}
		}
		s.byName[name] = a
		return nil
	})
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") ||
		strings.Contains(ctype, "json") || strings.Contains(ctype, "svg") || strings.Contains(ctype, "wasm")
}

// serve answers GET/HEAD /console/<name>: the file, or index.html for a
// path of the UI's own routes (a missing file in one of the UI's
// directories, e.g. assets/, is 404), with the Content-Security-Policy
// csp.
func (s *static) serve(w http.ResponseWriter, r *http.Request, name, csp string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	s.once.Do(s.load)
	a, ok := s.byName[name]
	if !ok || name == "" {
		first, _, _ := strings.Cut(name, "/")
		if s.dirs[first] {
			http.NotFound(w, r)
			return
		}
		name = "index.html"
		if a, ok = s.byName[name]; !ok {
			http.Error(w, "console UI not built", http.StatusNotFound)
			return
		}
	}
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Content-Type", a.ctype)
	h.Set("Vary", "Accept-Encoding")
	if a.immutable {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache") // revalidate: the ETag answers 304
	}
	body, etag := a.body, a.etag
	if a.gz != nil && acceptsGzip(r) {
		body, etag = a.gz, strings.TrimSuffix(a.etag, `"`)+`-gz"`
		h.Set("Content-Encoding", "gzip")
		r.Header.Del("Range") // ranges of the encoding would confuse
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
				continue
			}
			q, weighted := strings.CutPrefix(strings.ReplaceAll(q, " ", ""), "q=")
			f, err := strconv.ParseFloat(q, 64)
			return !weighted || err != nil || f > 0
		}
	}
	return false
}
