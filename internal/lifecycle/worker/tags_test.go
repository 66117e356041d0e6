package worker

import (
	"context"
	"strings"
	"testing"

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
