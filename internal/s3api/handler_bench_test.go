package s3api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/keyring/keyringtest"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/sts"
)

// BenchmarkHandlerObject measures the handler's PUT and GET of a 1 KiB
// object in an unversioned bucket (no lifecycle, no lock): the hot path,
// without the network, over the real stores with syncs off. One signed
// request is replayed (UNSIGNED-PAYLOAD, so the body may change).
//
// GET-user is GET signed by an IAM user instead of the root, under
// bench/authz.sh's policies (benchAuthzSetup): what authorization and the
// IAM key lookup add to a GET, the server's CPU of issue 21's item 7.
func BenchmarkHandlerObject(b *testing.B) {
	s := newFuzzServer(b)
	// Cancellable, as net/http's request contexts are: the driver and
	// database/sql watch such a context, which a Background one hides.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.svc.CreateBucket(ctx, fuzzBucket, fuzzRegion, fuzzAccessKey); err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 1024)
	if _, err := s.svc.PutObject(ctx, service.PutInput{Bucket: fuzzBucket, Key: "k", Body: bytes.NewReader(data),
		Size: int64(len(data)), Owner: fuzzAccessKey}); err != nil {
		b.Fatal(err)
	}
	userKey, userSecret := benchAuthzSetup(b, s, fuzzBucket)
	for _, tc := range []struct {
		name, method string
		body         []byte
		key, secret  string
	}{
		{"GET", http.MethodGet, nil, "", ""},
		{"GET-user", http.MethodGet, nil, userKey, userSecret},
		{"PUT", http.MethodPut, data, "", ""},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req, ok := s.buildRequest(tc.method, "/"+fuzzBucket+"/k", "", tc.body, payloadUnsigned)
			if !ok {
				b.Fatal("request not built")
			}
			if tc.key != "" {
				req.Header.Del("Authorization")
				sigv4.SignRequest(req, tc.key, tc.secret, fuzzRegion, time.Now(), sigv4.UnsignedPayload)
			}
			b.ReportAllocs()
			for b.Loop() {
				r := req.Clone(ctx)
				r.Body = http.NoBody
				if tc.body != nil {
					r.Body = io.NopCloser(bytes.NewReader(tc.body))
				}
				rec := httptest.NewRecorder()
				s.h.ServeHTTP(rec, r)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", tc.name, rec.Code, rec.Body)
				}
			}
		})
	}
}

// benchAuthzSetup gives s's handler IAM users over s's store and sets up
// bench/authz.sh's policies on bucket (the IAM cache polls the store as
// the server's does): a user with three attached managed
// policies (p1–p3) and the bucket's 20-statement policy. It returns the
// user's access key and secret.
func benchAuthzSetup(tb testing.TB, s *fuzzServer, bucket string) (string, string) {
	tb.Helper()
	ctx := context.Background()
	users, err := iam.New(ctx, s.meta, keyringtest.New(tb, 7), iam.Options{PollInterval: time.Second}) // as internal/server
	if err != nil {
		tb.Fatal(err)
	}
	s.h = New(s.svc, Config{Region: fuzzRegion, Logger: s.h.log, Credentials: StaticCredentials{fuzzAccessKey: fuzzSecretKey},
		IAM: users, STS: sts.New(users, keyringtest.New(tb, 7), sts.Options{})})
	u, err := users.CreateUser(ctx, "bench-user", "/")
	if err != nil {
		tb.Fatal(err)
	}
	key, err := users.CreateAccessKey(ctx, u.Name)
	if err != nil {
		tb.Fatal(err)
	}
	for i, doc := range benchUserPolicies(bucket) {
		p, err := users.CreatePolicy(ctx, fmt.Sprintf("bench-p%d", i+1), "/", "", []byte(doc))
		if err != nil {
			tb.Fatal(err)
		}
		if err := users.AttachPolicy(ctx, meta.EntityUser, u.Name, p.ARN); err != nil {
			tb.Fatal(err)
		}
	}
	if err := s.svc.PutBucketPolicy(ctx, bucket, []byte(benchBucketPolicy(bucket, users.Account(), u.ARN))); err != nil {
		tb.Fatal(err)
	}
	return key.ID, key.Secret.Reveal()
}

// benchUserPolicies are bench/authz.sh's p1–p3: what the workload needs,
// spread over three policies, with conditions to evaluate and a Deny that
// does not apply.
func benchUserPolicies(b string) []string {
	return []string{`{"Version":"2012-10-17","Statement":[
 {"Sid":"Read","Effect":"Allow","Action":["s3:GetObject","s3:GetObjectVersion"],"Resource":"arn:aws:s3:::` + b + `/*",
  "Condition":{"IpAddress":{"aws:SourceIp":["127.0.0.0/8","10.0.0.0/8"]}}},
 {"Sid":"NoSecrets","Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::` + b + `/secret/*"}]}`,
		`{"Version":"2012-10-17","Statement":[
 {"Sid":"Write","Effect":"Allow","Action":["s3:PutObject","s3:DeleteObject"],"Resource":["arn:aws:s3:::` + b + `/bench/*","arn:aws:s3:::` + b + `/${aws:username}/*"]},
 {"Sid":"NotBefore","Effect":"Deny","Action":"s3:*","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"2020-01-01T00:00:00Z"}}}]}`,
		`{"Version":"2012-10-17","Statement":[
 {"Sid":"List","Effect":"Allow","Action":["s3:ListBucket","s3:ListBucketVersions"],"Resource":"arn:aws:s3:::` + b + `"},
 {"Sid":"NoAdmin","Effect":"Deny","Action":["s3:DeleteBucket","s3:PutBucketPolicy","s3:PutBucketVersioning"],"Resource":"*"},
 {"Sid":"TagsOnly","Effect":"Allow","Action":"s3:GetObjectTagging","Resource":"arn:aws:s3:::` + b + `/*","Condition":{"StringEquals":{"aws:PrincipalType":"User"}}}]}`,
	}
}

// benchBucketPolicy is bench/authz.sh's 20-statement bucket policy:
// Denies for other prefixes, addresses and principals, Allows to other
// principals, and one Allow the user (userARN) matches.
func benchBucketPolicy(b, acct, userARN string) string {
	var st []string
	for i := 1; i <= 8; i++ {
		st = append(st, fmt.Sprintf(`{"Sid":"DenyArchive%d","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::%s/archive%d/*"}`, i, b, i))
	}
	for i := 1; i <= 5; i++ {
		st = append(st, fmt.Sprintf(`{"Sid":"Partner%d","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::%s:user/partner%d"},"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::%s","arn:aws:s3:::%s/shared%d/*"]}`, i, acct, i, b, b, i))
	}
	for i := 1; i <= 4; i++ {
		st = append(st, fmt.Sprintf(`{"Sid":"DenyNet%d","Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::%s/*","Condition":{"IpAddress":{"aws:SourceIp":"192.0.%d.0/24"}}}`, i, b, i))
	}
	st = append(st,
		`{"Sid":"PublicDocs","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::`+b+`/public/*","Condition":{"StringLike":{"aws:Referer":"https://example.com/*"}}}`,
		`{"Sid":"TLSForUploads","Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::`+b+`/uploads/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}`,
		`{"Sid":"BenchUser","Effect":"Allow","Principal":{"AWS":"`+userARN+`"},"Action":["s3:GetObject","s3:PutObject","s3:DeleteObject","s3:ListBucket"],"Resource":["arn:aws:s3:::`+b+`","arn:aws:s3:::`+b+`/*"]}`)
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(st, ",") + `]}`
}
