package s3api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
)

// opTargets is one request per routed operation, as S3 clients send it.
var opTargets = map[Op]struct {
	method, target string
	header         string // one "Name: value" header, if the route needs it
}{
	OpListBuckets:             {"GET", "/", ""},
	OpCreateBucket:            {"PUT", "/b", ""},
	OpHeadBucket:              {"HEAD", "/b", ""},
	OpDeleteBucket:            {"DELETE", "/b", ""},
	OpGetBucketLocation:       {"GET", "/b?location", ""},
	OpListObjects:             {"GET", "/b", ""},
	OpListObjectsV2:           {"GET", "/b?list-type=2", ""},
	OpDeleteObjects:           {"POST", "/b?delete", ""},
	OpPutObject:               {"PUT", "/b/k", ""},
	OpCopyObject:              {"PUT", "/b/k", "X-Amz-Copy-Source: /src/k"},
	OpGetObject:               {"GET", "/b/k", ""},
	OpHeadObject:              {"HEAD", "/b/k", ""},
	OpDeleteObject:            {"DELETE", "/b/k", ""},
	OpPostObject:              {"POST", "/b", "Content-Type: multipart/form-data; boundary=x"},
	OpCreateMultipartUpload:   {"POST", "/b/k?uploads", ""},
	OpUploadPart:              {"PUT", "/b/k?partNumber=1&uploadId=u", ""},
	OpUploadPartCopy:          {"PUT", "/b/k?partNumber=1&uploadId=u", "X-Amz-Copy-Source: /src/k"},
	OpCompleteMultipartUpload: {"POST", "/b/k?uploadId=u", ""},
	OpAbortMultipartUpload:    {"DELETE", "/b/k?uploadId=u", ""},
	OpListParts:               {"GET", "/b/k?uploadId=u", ""},
	OpListMultipartUploads:    {"GET", "/b?uploads", ""},
	OpGetObjectAttributes:     {"GET", "/b/k?attributes", ""},
	OpPutBucketCors:           {"PUT", "/b?cors", ""},
	OpGetBucketCors:           {"GET", "/b?cors", ""},
	OpDeleteBucketCors:        {"DELETE", "/b?cors", ""},

	OpPutBucketLifecycleConfiguration: {"PUT", "/b?lifecycle", ""},
	OpGetBucketLifecycleConfiguration: {"GET", "/b?lifecycle", ""},
	OpDeleteBucketLifecycle:           {"DELETE", "/b?lifecycle", ""},
	OpPutBucketVersioning:             {"PUT", "/b?versioning", ""},
	OpGetBucketVersioning:             {"GET", "/b?versioning", ""},
	OpListObjectVersions:              {"GET", "/b?versions", ""},
	OpPutBucketTagging:                {"PUT", "/b?tagging", ""},
	OpGetBucketTagging:                {"GET", "/b?tagging", ""},
	OpDeleteBucketTagging:             {"DELETE", "/b?tagging", ""},
	OpPutObjectTagging:                {"PUT", "/b/k?tagging", ""},
	OpGetObjectTagging:                {"GET", "/b/k?tagging", ""},
	OpDeleteObjectTagging:             {"DELETE", "/b/k?tagging", ""},
	OpPutObjectLockConfiguration:      {"PUT", "/b?object-lock", ""},
	OpGetObjectLockConfiguration:      {"GET", "/b?object-lock", ""},
	OpPutObjectRetention:              {"PUT", "/b/k?retention", ""},
	OpGetObjectRetention:              {"GET", "/b/k?retention", ""},
	OpPutObjectLegalHold:              {"PUT", "/b/k?legal-hold", ""},
	OpGetObjectLegalHold:              {"GET", "/b/k?legal-hold", ""},
	OpPutBucketPolicy:                 {"PUT", "/b?policy", ""},
	OpGetBucketPolicy:                 {"GET", "/b?policy", ""},
	OpDeleteBucketPolicy:              {"DELETE", "/b?policy", ""},
	OpGetBucketPolicyStatus:           {"GET", "/b?policyStatus", ""},
	OpPutBucketAcl:                    {"PUT", "/b?acl", ""},
	OpGetBucketAcl:                    {"GET", "/b?acl", ""},
	OpPutObjectAcl:                    {"PUT", "/b/k?acl", ""},
	OpGetObjectAcl:                    {"GET", "/b/k?acl", ""},
	OpPutBucketOwnershipControls:      {"PUT", "/b?ownershipControls", ""},
	OpGetBucketOwnershipControls:      {"GET", "/b?ownershipControls", ""},
	OpDeleteBucketOwnershipControls:   {"DELETE", "/b?ownershipControls", ""},
	OpPutPublicAccessBlock:            {"PUT", "/b?publicAccessBlock", ""},
	OpGetPublicAccessBlock:            {"GET", "/b?publicAccessBlock", ""},
	OpDeletePublicAccessBlock:         {"DELETE", "/b?publicAccessBlock", ""},
	OpCreateReservation:               {"POST", "/b?reservations", ""},
	OpListReservations:                {"GET", "/b?reservations", ""},
	OpGetReservation:                  {"GET", "/b?reservation=r1", ""},
	OpDeleteReservation:               {"DELETE", "/b?reservation=r1", ""},
	OpPutBucketQuota:                  {"PUT", "/b?quota", ""},
	OpPutBucketLogging:                {"PUT", "/b?logging", ""},
	OpGetBucketLogging:                {"GET", "/b?logging", ""},
	OpGetBucketQuota:                  {"GET", "/b?quota", ""},
	OpGetBucketPermissions:            {"GET", "/b?permissions&actions=s3:GetObject", ""},
	OpGetObjectPermissions:            {"GET", "/b/k?permissions&actions=s3:GetObject", ""},
	OpDeleteBucketQuota:               {"DELETE", "/b?quota", ""},
	OpStartReplicationResync:          {"POST", "/b?replication-resync", ""},
	OpGetReplicationResync:            {"GET", "/b?replication-resync", ""},

	OpPutBucketEncryption:                        {"PUT", "/b?encryption", ""},
	OpGetBucketEncryption:                        {"GET", "/b?encryption", ""},
	OpDeleteBucketEncryption:                     {"DELETE", "/b?encryption", ""},
	OpGetBucketWebsite:                           {"GET", "/b?website", ""},
	OpPutBucketReplication:                       {"PUT", "/b?replication", ""},
	OpGetBucketReplication:                       {"GET", "/b?replication", ""},
	OpDeleteBucketReplication:                    {"DELETE", "/b?replication", ""},
	OpGetBucketAccelerateConfiguration:           {"GET", "/b?accelerate", ""},
	OpGetBucketRequestPayment:                    {"GET", "/b?requestPayment", ""},
	OpGetBucketNotificationConfiguration:         {"GET", "/b?notification", ""},
	OpPutBucketNotificationConfiguration:         {"PUT", "/b?notification", ""},
	OpGetBucketAnalyticsConfiguration:            {"GET", "/b?analytics&id=a", ""},
	OpListBucketAnalyticsConfigurations:          {"GET", "/b?analytics", ""},
	OpGetBucketInventoryConfiguration:            {"GET", "/b?inventory&id=a", ""},
	OpListBucketInventoryConfigurations:          {"GET", "/b?inventory", ""},
	OpGetBucketMetricsConfiguration:              {"GET", "/b?metrics&id=a", ""},
	OpListBucketMetricsConfigurations:            {"GET", "/b?metrics", ""},
	OpGetBucketIntelligentTieringConfiguration:   {"GET", "/b?intelligent-tiering&id=a", ""},
	OpListBucketIntelligentTieringConfigurations: {"GET", "/b?intelligent-tiering", ""},
}

func opRequest(t *testing.T, op Op) *http.Request {
	t.Helper()
	tg, ok := opTargets[op]
	if !ok {
		t.Fatalf("no request for %v in opTargets", op)
	}
	r := httptest.NewRequest(tg.method, tg.target, nil)
	if name, v, ok := strings.Cut(tg.header, ": "); ok {
		r.Header.Set(name, v)
	}
	if got := ParseRoute(r, "").Op; got != op {
		t.Fatalf("%s %s routes to %v, want %v", tg.method, tg.target, got, op)
	}
	return r
}

// with returns r carrying the rule's parameter set to v.
func with(r *http.Request, rule wireRule, v string) *http.Request {
	r = r.Clone(r.Context())
	if rule.query {
		q := r.URL.Query()
		q.Set(rule.name, v)
		r.URL.RawQuery = q.Encode()
	} else {
		r.Header.Set(rule.name, v)
	}
	return r
}

// TestWireTableRefuses walks the table: every refusing operation refuses
// the rule's sample value with the rule's error (and accepts the request
// without it); every handling operation lets it through.
func TestWireTableRefuses(t *testing.T) {
	refusals := 0
	for _, rule := range wireTable {
		for _, op := range routed.ops() {
			base := opRequest(t, op)
			if err := checkWire(op, base.Header, base.URL.Query()); err != nil {
				t.Fatalf("%v without %s: %v", op, rule.name, err)
			}
			r := with(base, rule, rule.sample)
			err := checkWire(op, r.Header, r.URL.Query())
			switch {
			case rule.refused.has(op):
				refusals++
				if err != rule.err {
					t.Errorf("%v with %s: %q: got %v, want %v", op, rule.name, rule.sample, err, rule.err)
				}
			case err != nil:
				t.Errorf("%v with %s: %q: refused (%v), but the table does not refuse it there", op, rule.name, rule.sample, err)
			}
		}
	}
	if refusals < 20 {
		t.Fatalf("only %d refusals walked", refusals)
	}
}

// TestWireAccepts checks the values a refusing rule carries out all the same.
func TestWireAccepts(t *testing.T) {
	cases := []struct {
		op      Op
		header  string
		value   string
		refused bool
	}{
		{OpPutObject, "x-amz-acl", "private", false},
		{OpPutObject, "x-amz-acl", "bucket-owner-full-control", false},
		{OpPutObject, "x-amz-acl", "public-read", false}, // the handler answers, per bucket
		{OpCreateBucket, "x-amz-acl", "private", false},
		{OpPutBucketAcl, "x-amz-grant-read", `uri="http://acs.amazonaws.com/groups/global/AllUsers"`, false},
		{OpCreateBucket, "x-amz-bucket-object-lock-enabled", "false", false},
		{OpCreateBucket, "x-amz-bucket-object-lock-enabled", "True", false},
		{OpCreateBucket, "x-amz-object-ownership", "BucketOwnerEnforced", false},
		{OpCreateBucket, "x-amz-object-ownership", "BucketOwnerPreferred", false},
		{OpCreateBucket, "x-amz-bucket-namespace", "global", false},
		{OpPutObject, "x-amz-object-lock-legal-hold", "OFF", false},
		{OpPutObject, "x-amz-object-lock-legal-hold", "ON", false}, // the handler answers, per bucket
		{OpCreateMultipartUpload, "x-amz-object-lock-legal-hold", "OFF", false},
		{OpCreateMultipartUpload, "x-amz-object-lock-legal-hold", "ON", false},
		{OpPutObject, "x-amz-tagging", "", false},
		{OpCopyObject, "x-amz-tagging", "a=b", false},
		{OpPutObject, "x-amz-tagging", "a=b&c=", false},
		{OpPutObject, "x-amz-server-side-encryption-bucket-key-enabled", "false", false},
		{OpGetObject, "x-amz-server-side-encryption-customer-algorithm", "AES256", false}, // the handler reads it
		{OpPutObject, "x-amz-server-side-encryption", "aws:kms", false},
		{OpGetObject, "x-amz-server-side-encryption", "AES256", true}, // S3 refuses it on reads (ceph/s3-tests test_sse_kms_read_declare)
		{OpHeadObject, "x-amz-server-side-encryption-aws-kms-key-id", "k", true},
	}
	for _, c := range cases {
		r := opRequest(t, c.op)
		r.Header.Set(c.header, c.value)
		err := checkWire(c.op, r.Header, r.URL.Query())
		if (err != nil) != c.refused {
			t.Errorf("%v %s: %q: err %v, want refused %v", c.op, c.header, c.value, err, c.refused)
		}
	}
}

// s3Params is testdata/wire/s3-params.json, made by gen.py from the S3 API
// model botocore ships.
type s3Params struct {
	Botocore   string `json:"botocore"`
	Operations map[string]struct {
		Headers []string `json:"headers"`
		Query   []string `json:"query"`
	} `json:"operations"`
}

// TestWireTableCoversS3 fails for any header or query parameter that S3's
// API model defines for an operation JOG routes and that the table neither
// handles nor refuses there.
func TestWireTableCoversS3(t *testing.T) {
	b, err := os.ReadFile("testdata/wire/s3-params.json")
	if err != nil {
		t.Fatal(err)
	}
	var model s3Params
	if err := json.Unmarshal(b, &model); err != nil {
		t.Fatal(err)
	}
	rules := map[string]wireRule{}
	for _, r := range wireTable {
		k := r.name
		if !r.query {
			if k != strings.ToLower(k) {
				t.Errorf("header rule %q: write header names in lower case", k)
			}
		} else {
			k = "?" + k
		}
		if _, dup := rules[k]; dup {
			t.Errorf("rule %q appears twice", k)
		}
		rules[k] = r
		if both := r.handled.intersect(r.refused); both != (opSet{}) {
			t.Errorf("%s: operations both handle and refuse it: %v", r.name, both.ops())
		}
		if r.refused != (opSet{}) && (r.err == nil || r.sample == "") {
			t.Errorf("%s: a refusing rule needs an error and a sample value", r.name)
		}
		if r.handled.union(r.refused) == (opSet{}) {
			t.Errorf("%s: names no operation", r.name)
		}
	}
	checked := 0
	for _, op := range routed.ops() {
		params, ok := model.Operations[op.String()]
		if !ok && extensions.has(op) {
			continue // JOG's own: not in S3's model
		}
		if !ok && op == OpPostObject {
			// No SDK operation: browsers send it, its fields are those
			// of PutObject's headers (formHeaders), checked there.
			continue
		}
		if !ok {
			t.Errorf("%v is not an S3 operation in the model", op)
			continue
		}
		check := func(key string) {
			checked++
			r, ok := rules[key]
			if !ok || !r.handled.union(r.refused).has(op) {
				t.Errorf("S3 defines %q for %v: the wire table neither handles nor refuses it there", strings.TrimPrefix(key, "?"), op)
			}
		}
		for _, h := range params.Headers {
			check(h)
		}
		for _, q := range params.Query {
			check("?" + q)
		}
	}
	if checked < 200 {
		t.Fatalf("only %d parameters checked: is %s complete?", checked, "s3-params.json")
	}
}

func TestRefusalsListEveryPair(t *testing.T) {
	n := 0
	for _, r := range wireTable {
		n += len(r.refused.ops())
	}
	got := Refusals()
	if len(got) != n {
		t.Fatalf("Refusals() lists %d pairs, the table %d", len(got), n)
	}
	for _, r := range got {
		if (r.Header == "") == (r.Query == "") || r.Sample == "" || r.Status < 400 {
			t.Errorf("malformed refusal %+v", r)
		}
		if _, err := url.ParseQuery(r.Query); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}

// TestCompatibilityListsRefusals keeps docs/COMPATIBILITY.md true: every
// refused header is named there.
func TestCompatibilityListsRefusals(t *testing.T) {
	b, err := os.ReadFile("../../docs/COMPATIBILITY.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ToLower(string(b))
	for _, r := range wireTable {
		if r.refused == (opSet{}) {
			continue
		}
		if !strings.Contains(doc, "`"+strings.ToLower(r.name)+"`") {
			t.Errorf("COMPATIBILITY.md does not list the refused %q", r.name)
		}
	}
}
