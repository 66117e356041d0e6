package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// MetaBackends are the metadata backends internal/storage can open, by
// the name MetaBackend gives a --meta value.
var MetaBackends = []string{"sqlite", "postgres"}

// metaUsage describes --meta's values.
const metaUsage = `metadata backend: sqlite (in the data dir), or PostgreSQL as a postgres:// URL ` +
	`("postgres://user@host:5432/jog") or a libpq key=value string ("host=db dbname=jog"); blobs stay in the data dir. ` +
	`A password: in JOG_META, the config file, PGPASSWORD or ~/.pgpass (a flag shows in process listings)`

// keyValue is the start of a libpq key=value connection string.
var keyValue = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)

// MetaBackend names the backend a --meta value selects: "sqlite";
// "postgres" for a postgres:// or postgresql:// URL or a libpq key=value
// string; "" for anything else.
func MetaBackend(meta string) string {
	switch {
	case meta == "sqlite":
		return "sqlite"
	case strings.HasPrefix(meta, "postgres://"), strings.HasPrefix(meta, "postgresql://"), keyValue.MatchString(meta):
		return "postgres"
	}
	return ""
}

// checkMeta reports what is wrong with a --meta value, never showing its
// password. A URL must parse; the rest of a connection string (its keys,
// whether the server answers) is PostgreSQL's to judge when the server
// connects.
func checkMeta(meta string) error {
	switch MetaBackend(meta) {
	case "":
		return fmt.Errorf("--meta %q: unknown metadata backend, want sqlite or a PostgreSQL URL (postgres://user@host/db)", RedactMeta(meta))
	case "postgres":
		if strings.Contains(meta, "://") {
			// url.Parse's errors quote the URL, password and all: only
			// the redacted form is shown.
			if _, err := url.Parse(meta); err != nil {
				return fmt.Errorf("--meta %q: not a valid URL", RedactMeta(meta))
			}
		}
	}
	return nil
}

// redacted replaces a password.
const redacted = "xxxxx"

// passwordPair is a password=value pair of a key=value string or of a
// URL's query: the value is quoted ('…', with \' and \\ escapes) or runs
// to the next space or &.
var passwordPair = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&]*)`)

// RedactMeta is a --meta value fit for a log line or an error: any
// password in it (a URL's user:password@, a password=… pair) replaced by
// xxxxx. It errs on the side of hiding: in a URL everything between the
// user's colon and the last @ is the password.
func RedactMeta(meta string) string {
	if i, j, ok := urlPassword(meta); ok {
		meta = meta[:i] + redacted + meta[j:]
	}
	return passwordPair.ReplaceAllString(meta, "${1}"+redacted)
}

// urlPassword locates the password of a URL's user:password@: meta[i:j].
func urlPassword(meta string) (i, j int, ok bool) {
	_, rest, ok := strings.Cut(meta, "://")
	if !ok {
		return 0, 0, false
	}
	at := strings.LastIndex(rest, "@")
	colon := strings.Index(rest[:max(at, 0)], ":")
	if at < 0 || colon < 0 {
		return 0, 0, false
	}
	off := len(meta) - len(rest)
	return off + colon + 1, off + at, true
}

// RedactIn removes from message (an error from a store opened with meta)
// every password meta holds, as written and unescaped.
func RedactIn(message, meta string) string {
	message = strings.ReplaceAll(message, meta, RedactMeta(meta))
	for _, p := range metaPasswords(meta) {
		message = strings.ReplaceAll(message, p, redacted)
	}
	return message
}

// metaPasswords returns the passwords in meta, each as written and, where
// it differs, unescaped.
func metaPasswords(meta string) []string {
	var raw []string
	if i, j, ok := urlPassword(meta); ok {
		raw = append(raw, meta[i:j])
	}
	for _, m := range passwordPair.FindAllStringSubmatch(meta, -1) {
		raw = append(raw, m[2])
	}
	var out []string
	for _, p := range raw {
		forms := []string{p}
		if u, err := url.QueryUnescape(p); err == nil {
			forms = append(forms, u)
		}
		if q := strings.Trim(p, "'"); q != p {
			forms = append(forms, strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(q))
		}
		for _, f := range forms {
			if f != "" {
				out = append(out, f)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) }) // longest first
	return out
}
