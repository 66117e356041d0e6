package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/test/integration/itest"
)

// TestAuthzFormFields: a PostObject form's fields are authorized as the
// equivalent PUT's headers: its tagging field needs s3:PutObjectTagging
// and sets s3:RequestObjectTag/<key> (the field is XML, converted), its
// acl field is s3:x-amz-acl. A refused form stores nothing.
func TestAuthzFormFields(t *testing.T) {
	srv, root, rootS3 := startIAMServer(t, "forms")
	ctx := context.Background()
	users := map[string]string{
		// PutObject only; a public-read ACL explicitly denied.
		"poster": `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::forms/*"},
			{"Effect":"Deny","Action":"s3:PutObject","Resource":"arn:aws:s3:::forms/*","Condition":{"StringEquals":{"s3:x-amz-acl":"public-read"}}}]}`,
		// PutObject, and tags only class=public.
		"tagger": `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::forms/*"},
			{"Effect":"Allow","Action":"s3:PutObjectTagging","Resource":"arn:aws:s3:::forms/*","Condition":{"StringEquals":{"s3:RequestObjectTag/class":"public"}}}]}`,
	}
	keys := map[string][2]string{}
	for name, doc := range users {
		id, secret := newIAMUser(t, root, name, doc)
		keys[name] = [2]string{id, secret}
	}
	tagXML := func(v string) string {
		return `<Tagging><TagSet><Tag><Key>class</Key><Value>` + v + `</Value></Tag></TagSet></Tagging>`
	}
	future := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		who, key string
		extra    []itest.FormField
		want     int
	}{
		{"poster", "plain", nil, http.StatusNoContent},
		{"poster", "tagged", []itest.FormField{{Name: "tagging", Value: tagXML("public")}}, http.StatusForbidden},
		{"poster", "public", []itest.FormField{{Name: "acl", Value: "public-read"}}, http.StatusForbidden},
		{"tagger", "tag-public", []itest.FormField{{Name: "tagging", Value: tagXML("public")}}, http.StatusNoContent},
		{"tagger", "tag-secret", []itest.FormField{{Name: "tagging", Value: tagXML("secret")}}, http.StatusForbidden},
	} {
		conds := []any{map[string]string{"bucket": "forms"}, map[string]string{"key": tc.key}}
		for _, f := range tc.extra {
			conds = append(conds, map[string]string{f.Name: f.Value})
		}
		k := keys[tc.who]
		fields := append(itest.SignedFormAs(t, k[0], k[1], future, conds...), itest.FormField{Name: "key", Value: tc.key})
		fields = append(fields, tc.extra...)
		resp, body := itest.PostForm(t, srv.URL+"/forms", fields, "f.txt", []byte("posted"))
		if resp.StatusCode != tc.want {
			t.Errorf("%s's form %s: %d %s, want %d", tc.who, tc.key, resp.StatusCode, body, tc.want)
		}
		if tc.want == http.StatusForbidden {
			if !strings.Contains(string(body), "AccessDenied") {
				t.Errorf("%s's form %s: %s, want AccessDenied", tc.who, tc.key, body)
			}
			itest.WantNoObject(t, rootS3, "forms", tc.key)
		}
	}
	itest.WantObject(t, rootS3, "forms", "plain", []byte("posted"))
	tags, err := rootS3.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String("forms"), Key: aws.String("tag-public")})
	if err != nil || len(tags.TagSet) != 1 || aws.ToString(tags.TagSet[0].Value) != "public" {
		t.Fatalf("tag-public's tags: %+v, %v", tags, err)
	}
}
