package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestEndpointFromEnvironment: every client command (jog admin, cp and
// bench) calls the server --endpoint names, else JOG_ENDPOINT's, else
// AWS_ENDPOINT_URL's: each case runs against three servers and checks
// which one was called.
func TestEndpointFromEnvironment(t *testing.T) {
	hits := map[string]int{}
	var mu sync.Mutex
	url := map[string]string{}
	for _, name := range []string{"flag", "jog", "aws"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[name]++
			mu.Unlock()
			http.Error(w, "<Error><Code>AccessDenied</Code><Message>no</Message></Error>", http.StatusForbidden)
		}))
		t.Cleanup(srv.Close)
		url[name] = srv.URL
	}
	creds := []string{"--access-key", "AK", "--secret-key", "secretkey"}
	file := filepath.Join(t.TempDir(), "f")
	// Each command's words before its flags, and after.
	commands := map[string][2][]string{
		"admin": {{"admin"}, append(creds, "user", "list")},
		"cp":    {{"cp"}, append(creds, "--quiet", "s3://b/k", file)},
		"bench": {{"bench", "put"}, append(creds, "--ops", "1", "--bucket", "b")},
	}
	for cmd, words := range commands {
		for _, tc := range []struct {
			name                 string
			flag, jogEnv, awsEnv bool
		}{
			{"flag", true, true, true},
			{"jog", false, true, true},
			{"aws", false, false, true},
		} {
			t.Setenv("JOG_ENDPOINT", "")
			t.Setenv("AWS_ENDPOINT_URL", "")
			if tc.jogEnv {
				t.Setenv("JOG_ENDPOINT", url["jog"])
			}
			if tc.awsEnv {
				t.Setenv("AWS_ENDPOINT_URL", url["aws"])
			}
			run := slices.Clone(words[0])
			if tc.flag {
				run = append(run, "--endpoint", url["flag"])
			}
			run = append(run, words[1]...)
			clear(hits)
			var out, errs bytes.Buffer
			Run(context.Background(), run, &out, &errs)
			if hits[tc.name] == 0 || len(hits) != 1 {
				t.Errorf("jog %s with the endpoint in %s called %v; stderr %q", cmd, tc.name, hits, strings.TrimSpace(errs.String()))
			}
		}
	}
}
