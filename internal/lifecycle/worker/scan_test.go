package worker

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sse"
)

// prefixRules expire objects under b/ (and b/x/, within it) and d/,
// abort uploads under u/, and remove noncurrent versions under v/ and lone
// delete markers under m/.
const prefixRules = `<Rule><ID>b</ID><Filter><Prefix>b/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
	`<Rule><ID>bx</ID><Filter><And><Prefix>b/x/</Prefix><ObjectSizeLessThan>100</ObjectSizeLessThan></And></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
	`<Rule><ID>d</ID><Filter><Prefix>d/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
	`<Rule><ID>u</ID><Filter><Prefix>u/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
	`<Rule><ID>v</ID><Filter><Prefix>v/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
	`<Rule><ID>m</ID><Filter><Prefix>m/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`

// setupPrefixes makes, beside the keys the rules select, as many outside
// every prefix (a/, b0, c/, e/, the uploads under t/, the versions of w/).
func setupPrefixes(t *testing.T, svc *service.Service) {
	t.Helper()
	ctx := context.Background()
	setup(t, svc, prefixRules, "a/1", "a/2", "b/1", "b/2", "b/x/1", "b0", "c/1", "d/1", "e/1", "e/2")
	for _, k := range []string{"t/1", "u/1", "u/2", "t/2"} {
		if _, err := svc.CreateUpload(ctx, meta.Upload{Bucket: "bkt", Key: k}, sse.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.PutBucketVersioning(ctx, "bkt", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"v/1", "v/1", "w/1", "w/1", "w/1"} {
		if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: k, Body: strings.NewReader(k), Size: int64(len(k))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"m/1", "n/1"} { // lone delete markers
		if _, err := svc.DeleteObject(ctx, "bkt", k, "", "owner", meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPassScansOnlyRulePrefixes: a pass reads only the keys, uploads and
// versions under the prefixes its rules name (Report.Scanned counts each
// one read), a page at a time across prefixes, and does what an
// unrestricted pass would.
func TestPassScansOnlyRulePrefixes(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setupPrefixes(t, svc)
	rep, err := New(svc, quiet, Options{PageSize: 1, Now: inThreeDays}).Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Objects: b/1 b/2 b/x/1 d/1. Uploads: u/1 u/2. Versions: v/1's
	// two (the older one goes), m/1's marker (it goes), and under the
	// Expiration Days rules' b/ and d/ (which remove expired delete
	// markers too) the four keys' new delete markers and null versions.
	if rep.Scanned != 4+2+3+8 || rep.Expired != 4 || rep.Aborted != 2 || rep.Noncurrent != 1 || rep.Markers != 1 {
		t.Errorf("report %+v, want 17 scanned: 4 objects (b/1, b/2, b/x/1, d/1), 2 uploads, 3+8 versions", rep)
	}
	want := []string{"a/1", "a/2", "b0", "c/1", "e/1", "e/2", "v/1", "w/1"}
	if got := keys(t, svc); !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	if n := uploads(t, svc); n != 2 {
		t.Errorf("%d uploads left, want t/1 and t/2", n)
	}
	if doc, _ := svc.LifecycleCursor(context.Background(), "bkt"); doc != nil {
		t.Errorf("cursor left: %s", doc)
	}
}

// TestPrefixScanResumes interrupts a pass after each page and resumes it
// from the stored cursor, across prefixes and phases, to the same end.
func TestPrefixScanResumes(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setupPrefixes(t, svc)
	var passes, scanned int
	for {
		passes++
		if passes > 50 {
			t.Fatal("the pass never ends")
		}
		ctx, cancel := context.WithCancel(context.Background())
		rep, err := New(svc, quiet, Options{PageSize: 1, Now: inThreeDays, OnPage: func(string) { cancel() }}).Pass(ctx)
		cancel()
		scanned += rep.Scanned
		if err == nil {
			break
		}
	}
	// A pass stops after a page it has applied and recorded: the next one
	// resumes after it, so each selected entry is read once in all.
	want := []string{"a/1", "a/2", "b0", "c/1", "e/1", "e/2", "v/1", "w/1"}
	if got := keys(t, svc); !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	if n := uploads(t, svc); n != 2 {
		t.Errorf("%d uploads left, want t/1 and t/2", n)
	}
	if passes < 5 || scanned != 4+2+3+8 {
		t.Errorf("%d passes scanned %d, want several passes reading the 17 selected entries once each", passes, scanned)
	}
}

func TestNextPrefix(t *testing.T) {
	ps := []string{"b/", "d/", "é/"}
	for _, tc := range []struct {
		prefixes    []string
		after, next string
		want        string
		ok          bool
	}{
		{ps, "", "", "b/", true},
		{ps, "a", "", "b/", true},
		{ps, "b/9", "", "b/", true}, // inside b/: the rest of it
		{ps, "c", "", "d/", true},
		{ps, "", "d/", "d/", true},
		{ps, "", "é/", "é/", true},
		{ps, "é/z", "", "é/", true},
		{ps, "ê", "", "", false}, // é/ < ê, bytewise
		{ps, "", "ê/", "", false},
		{ps, "", "b/x", "b/", true}, // the rules changed: b/ is scanned whole
		{[]string{""}, "zzz", "", "", true},
		{nil, "", "", "", false},
	} {
		got, ok := nextPrefix(tc.prefixes, tc.after, tc.next)
		if got != tc.want || ok != tc.ok {
			t.Errorf("nextPrefix(%q, after %q, next %q) = %q %v, want %q %v", tc.prefixes, tc.after, tc.next, got, ok, tc.want, tc.ok)
		}
	}
	if following(ps, "b/") != "d/" || following(ps, "é/") != "" || following([]string{""}, "") != "" {
		t.Error("following")
	}
}
