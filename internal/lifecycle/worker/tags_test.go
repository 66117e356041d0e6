package worker

import (
	"context"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// TestPassMatchesTags: a rule filtering on tags expires the objects whose
// tags match, read for the objects its prefix and sizes select.
func TestPassMatchesTags(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setup(t, svc,
		`<Rule><ID>tmp</ID><Filter><And><Prefix>t/</Prefix><Tag><Key>tmp</Key><Value>yes</Value></Tag></And></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`+
			`<Rule><ID>scratch</ID><Filter><Tag><Key>scratch</Key><Value></Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`)
	ctx := context.Background()
	for k, tags := range map[string]string{
		"t/a": "tmp=yes&x=1", "t/b": "tmp=no", "t/c": "", "u/d": "tmp=yes", "u/e": "scratch=",
	} {
		if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: k, Body: strings.NewReader(k), Size: int64(len(k)), Tags: tags}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := New(svc, quiet, Options{PageSize: 2, Now: inThreeDays}).Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys(t, svc), ","); got != "t/b,t/c,u/d" {
		t.Errorf("left %s, want t/b,t/c,u/d", got)
	}
	if rep.Expired != 2 {
		t.Errorf("report %+v", rep)
	}
}

// TestPassMatchesVersionTags: a NoncurrentVersionExpiration rule filtering
// on a tag removes the noncurrent versions whose own tags match (tags
// belong to a version) and keeps the others, the newest and oldest alike.
func TestPassMatchesVersionTags(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setup(t, svc, `<Rule><ID>tmp</ID><Filter><Tag><Key>tmp</Key><Value>yes</Value></Tag></Filter><Status>Enabled</Status>`+
		`<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`)
	ctx := context.Background()
	if err := svc.PutBucketVersioning(ctx, "bkt", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct{ key, body, tags string }{
		{"k", "k1", "tmp=yes"}, {"k", "k2", ""}, {"k", "k3", "tmp=no"}, {"k", "k4", "tmp=yes"}, // k4 current
		{"j", "j1", ""}, {"j", "j2", "tmp=yes&x=1"}, {"j", "j3", ""},
	} {
		if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: v.key, Body: strings.NewReader(v.body),
			Size: int64(len(v.body)), Tags: v.tags}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := New(svc, quiet, Options{PageSize: 2, Now: inThreeDays}).Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := versionsLeft(t, svc), "j:j3,j:j1,k:k4,k:k3,k:k2"; got != want {
		t.Errorf("left %s\nwant %s", got, want)
	}
	if rep.Noncurrent != 2 {
		t.Errorf("report %+v, want 2 noncurrent versions removed", rep)
	}
}
