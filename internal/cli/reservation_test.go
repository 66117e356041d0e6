package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReservationCreateRequests: --requests (and its older name --rps)
// puts RequestsPerSecond in the reservation jog admin sends, and a
// reservation of a request rate alone is sent too (the server decides
// whether it fits).
func TestReservationCreateRequests(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+string(b))
		_, _ = io.WriteString(w, "<Reservation><Id>abc</Id><State>active</State><RequestsPerSecond>200</RequestsPerSecond></Reservation>")
	}))
	defer srv.Close()
	for _, flag := range []string{"--requests", "--rps"} {
		got = nil
		var out, errs bytes.Buffer
		args := []string{"admin", "--endpoint", srv.URL, "--access-key", "AK", "--secret-key", "secretkey",
			"reservation", "create", flag, "200", "--start", "2030-01-01T00:00:00Z", "b"}
		if code := Run(context.Background(), args, &out, &errs); code != 0 {
			t.Fatalf("%s: exit %d: %s", flag, code, errs.String())
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "POST /b?reservations ") ||
			!strings.Contains(got[0], "<RequestsPerSecond>200</RequestsPerSecond>") ||
			!strings.Contains(got[0], "<ReadBytesPerSecond>0</ReadBytesPerSecond>") {
			t.Errorf("%s 200 sent %q", flag, got)
		}
		if f := strings.Split(strings.TrimSpace(out.String()), "\t"); len(f) < 5 || f[0] != "abc" || f[4] != "200" {
			t.Errorf("%s: printed %q, want the requests/s in the fifth field", flag, out.String())
		}
	}
}
