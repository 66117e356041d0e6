package s3api

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestOperationTable checks every row of the operations table: a routed
// operation has a name, IAM actions, a kind and a handler; the special
// ones (unknown, unsupported, preflight) have a name and nothing else.
func TestOperationTable(t *testing.T) {
	special := opsOf(OpUnknown, OpUnsupported, OpPreflight)
	names := map[string]Op{}
	for o := Op(0); o < numOps; o++ {
		d := operations[o]
		if d.name == "" {
			t.Errorf("operation %d has no name", o)
			continue
		}
		if prev, dup := names[d.name]; dup {
			t.Errorf("%s: name of operation %d too", d.name, prev)
		}
		names[d.name] = o
		if special.has(o) {
			if d.actions != nil || d.source != "" || d.kind != KindNone || d.serve != nil {
				t.Errorf("%s: special operation with actions %v, source %q, kind %v, handler %v",
					o, d.actions, d.source, d.kind, d.serve != nil)
			}
			continue
		}
		if !routed.has(o) {
			t.Errorf("%s: neither special nor in the wire table's routed set", o)
		}
		if d.serve == nil {
			t.Errorf("%s: no handler", o)
		}
		if d.kind == KindNone || int(d.kind) >= len(kindNames) {
			t.Errorf("%s: kind %d", o, d.kind)
		}
		// Only an operation about its caller alone needs no action, and
		// it is JOG's.
		if caller := d.attrs&callerOnly != 0; (len(d.actions) == 0) != caller || caller && d.attrs&jogOwn == 0 {
			t.Errorf("%s: IAM actions %v, about the caller alone %v", o, d.actions, caller)
		}
		vendor := "s3:"
		if extensions.has(o) {
			vendor = "jog:"
		}
		for _, a := range append(slices.Clone(d.actions), d.source) {
			if a != "" && (!strings.HasPrefix(a, vendor) || strings.ContainsAny(a, " *")) {
				t.Errorf("%s: IAM action %q", o, a)
			}
		}
		if (d.source != "") != (o == OpCopyObject || o == OpUploadPartCopy) {
			t.Errorf("%s: source action %q; a copy needs one, nothing else has one", o, d.source)
		}
	}
}

// awsActions is the IAM mapping AWS documents for the operations JOG
// serves: the Service Authorization Reference, "Actions, resources, and
// condition keys for Amazon S3", table "API operations defined by Amazon
// S3" (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html),
// and each operation's API reference, section "Permissions"
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_<Operation>.html):
//   - HeadBucket: "you must have permissions to perform the s3:ListBucket action";
//   - HeadObject: "you must have the s3:GetObject permission";
//   - GetObjectAttributes, no version ID: "you need the s3:GetObject and
//     s3:GetObjectAttributes permissions";
//   - CopyObject, UploadPartCopy: s3:GetObject on the source object,
//     s3:PutObject on the destination;
//   - DeleteObjects: s3:DeleteObject for each key;
//   - DeleteBucketCors: "you must have permission to perform the
//     s3:PutBucketCORS action";
//   - DeleteBucketLifecycle: "you must have permission to perform the
//     s3:PutLifecycleConfiguration action"; Put and Get need
//     s3:PutLifecycleConfiguration and s3:GetLifecycleConfiguration.
//
// Versioned requests (a versionId) need the *Version actions instead:
// awsVersionActions.
var awsActions = map[string]struct {
	actions []string
	source  string // on the copy source
}{
	"ListBuckets":             {[]string{"s3:ListAllMyBuckets"}, ""},
	"CreateBucket":            {[]string{"s3:CreateBucket"}, ""},
	"HeadBucket":              {[]string{"s3:ListBucket"}, ""},
	"DeleteBucket":            {[]string{"s3:DeleteBucket"}, ""},
	"GetBucketLocation":       {[]string{"s3:GetBucketLocation"}, ""},
	"ListObjects":             {[]string{"s3:ListBucket"}, ""},
	"ListObjectsV2":           {[]string{"s3:ListBucket"}, ""},
	"DeleteObjects":           {[]string{"s3:DeleteObject"}, ""},
	"PutObject":               {[]string{"s3:PutObject"}, ""},
	"CopyObject":              {[]string{"s3:PutObject"}, "s3:GetObject"},
	"GetObject":               {[]string{"s3:GetObject"}, ""},
	"HeadObject":              {[]string{"s3:GetObject"}, ""},
	"DeleteObject":            {[]string{"s3:DeleteObject"}, ""},
	"CreateMultipartUpload":   {[]string{"s3:PutObject"}, ""},
	"UploadPart":              {[]string{"s3:PutObject"}, ""},
	"UploadPartCopy":          {[]string{"s3:PutObject"}, "s3:GetObject"},
	"CompleteMultipartUpload": {[]string{"s3:PutObject"}, ""},
	"AbortMultipartUpload":    {[]string{"s3:AbortMultipartUpload"}, ""},
	"ListParts":               {[]string{"s3:ListMultipartUploadParts"}, ""},
	"ListMultipartUploads":    {[]string{"s3:ListBucketMultipartUploads"}, ""},
	"GetObjectAttributes":     {[]string{"s3:GetObject", "s3:GetObjectAttributes"}, ""},
	"PutBucketCors":           {[]string{"s3:PutBucketCORS"}, ""},
	"GetBucketCors":           {[]string{"s3:GetBucketCORS"}, ""},
	"DeleteBucketCors":        {[]string{"s3:PutBucketCORS"}, ""},

	"PutBucketLifecycleConfiguration": {[]string{"s3:PutLifecycleConfiguration"}, ""},
	"GetBucketLifecycleConfiguration": {[]string{"s3:GetLifecycleConfiguration"}, ""},
	"DeleteBucketLifecycle":           {[]string{"s3:PutLifecycleConfiguration"}, ""},
	"PutBucketVersioning":             {[]string{"s3:PutBucketVersioning"}, ""},
	"GetBucketVersioning":             {[]string{"s3:GetBucketVersioning"}, ""},
	"ListObjectVersions":              {[]string{"s3:ListBucketVersions"}, ""},
	"PutBucketTagging":                {[]string{"s3:PutBucketTagging"}, ""},
	"GetBucketTagging":                {[]string{"s3:GetBucketTagging"}, ""},
	"DeleteBucketTagging":             {[]string{"s3:PutBucketTagging"}, ""},
	"PutObjectTagging":                {[]string{"s3:PutObjectTagging"}, ""},
	"GetObjectTagging":                {[]string{"s3:GetObjectTagging"}, ""},
	"DeleteObjectTagging":             {[]string{"s3:DeleteObjectTagging"}, ""},
	"PutObjectLockConfiguration":      {[]string{"s3:PutBucketObjectLockConfiguration"}, ""},
	"GetObjectLockConfiguration":      {[]string{"s3:GetBucketObjectLockConfiguration"}, ""},
	"PutObjectRetention":              {[]string{"s3:PutObjectRetention"}, ""},
	"GetObjectRetention":              {[]string{"s3:GetObjectRetention"}, ""},
	"PutObjectLegalHold":              {[]string{"s3:PutObjectLegalHold"}, ""},
	"GetObjectLegalHold":              {[]string{"s3:GetObjectLegalHold"}, ""},
	"PutBucketPolicy":                 {[]string{"s3:PutBucketPolicy"}, ""},
	"GetBucketPolicy":                 {[]string{"s3:GetBucketPolicy"}, ""},
	"DeleteBucketPolicy":              {[]string{"s3:DeleteBucketPolicy"}, ""},
	"GetBucketPolicyStatus":           {[]string{"s3:GetBucketPolicyStatus"}, ""},
	"PutBucketAcl":                    {[]string{"s3:PutBucketAcl"}, ""},
	"GetBucketAcl":                    {[]string{"s3:GetBucketAcl"}, ""},
	"PutObjectAcl":                    {[]string{"s3:PutObjectAcl"}, ""},
	"GetObjectAcl":                    {[]string{"s3:GetObjectAcl"}, ""},
	"PutBucketOwnershipControls":      {[]string{"s3:PutBucketOwnershipControls"}, ""},
	"GetBucketOwnershipControls":      {[]string{"s3:GetBucketOwnershipControls"}, ""},
	"DeleteBucketOwnershipControls":   {[]string{"s3:PutBucketOwnershipControls"}, ""},
	"PutPublicAccessBlock":            {[]string{"s3:PutBucketPublicAccessBlock"}, ""},
	"GetPublicAccessBlock":            {[]string{"s3:GetBucketPublicAccessBlock"}, ""},
	"DeletePublicAccessBlock":         {[]string{"s3:PutBucketPublicAccessBlock"}, ""},
	// PutBucketLogging, GetBucketLogging: "s3:PutBucketLogging",
	// "s3:GetBucketLogging" (Service Authorization Reference).
	"PutBucketLogging": {[]string{"s3:PutBucketLogging"}, ""},
	"GetBucketLogging": {[]string{"s3:GetBucketLogging"}, ""},
	// POST Object (API reference, RESTObjectPOST): the write access of a PUT.
	"PostObject": {[]string{"s3:PutObject"}, ""},
	// Configuration reads (Service Authorization Reference; each List
	// operation's API reference: "you must have permissions to perform
	// the s3:GetAnalyticsConfiguration action", and so on).
	// Default encryption: DeleteBucketEncryption has no action of its
	// own (its API reference: "s3:PutEncryptionConfiguration").
	"PutBucketEncryption":    {[]string{"s3:PutEncryptionConfiguration"}, ""},
	"GetBucketEncryption":    {[]string{"s3:GetEncryptionConfiguration"}, ""},
	"DeleteBucketEncryption": {[]string{"s3:PutEncryptionConfiguration"}, ""},
	"GetBucketWebsite":       {[]string{"s3:GetBucketWebsite"}, ""},
	// Replication: DeleteBucketReplication has no action of its own (its
	// API reference: "s3:PutReplicationConfiguration").
	"PutBucketReplication":                       {[]string{"s3:PutReplicationConfiguration"}, ""},
	"GetBucketReplication":                       {[]string{"s3:GetReplicationConfiguration"}, ""},
	"DeleteBucketReplication":                    {[]string{"s3:PutReplicationConfiguration"}, ""},
	"GetBucketAccelerateConfiguration":           {[]string{"s3:GetAccelerateConfiguration"}, ""},
	"GetBucketRequestPayment":                    {[]string{"s3:GetBucketRequestPayment"}, ""},
	"GetBucketNotificationConfiguration":         {[]string{"s3:GetBucketNotification"}, ""},
	"PutBucketNotificationConfiguration":         {[]string{"s3:PutBucketNotification"}, ""},
	"GetBucketAnalyticsConfiguration":            {[]string{"s3:GetAnalyticsConfiguration"}, ""},
	"ListBucketAnalyticsConfigurations":          {[]string{"s3:GetAnalyticsConfiguration"}, ""},
	"GetBucketInventoryConfiguration":            {[]string{"s3:GetInventoryConfiguration"}, ""},
	"ListBucketInventoryConfigurations":          {[]string{"s3:GetInventoryConfiguration"}, ""},
	"GetBucketMetricsConfiguration":              {[]string{"s3:GetMetricsConfiguration"}, ""},
	"ListBucketMetricsConfigurations":            {[]string{"s3:GetMetricsConfiguration"}, ""},
	"GetBucketIntelligentTieringConfiguration":   {[]string{"s3:GetIntelligentTieringConfiguration"}, ""},
	"ListBucketIntelligentTieringConfigurations": {[]string{"s3:GetIntelligentTieringConfiguration"}, ""},
}

// jogActions are the actions of JOG's own operations (extensions): one
// jog: action each, on the bucket (docs/SECURITY.md); none ("") for the
// questions about the caller's own permissions, which anyone
// authenticated may ask.
var jogActions = map[string]string{
	"GetBucketPermissions": "",
	"GetObjectPermissions": "",

	"CreateReservation": "jog:CreateReservation",
	"ListReservations":  "jog:ListReservations",
	"GetReservation":    "jog:GetReservation",
	"DeleteReservation": "jog:DeleteReservation",
	"PutBucketQuota":    "jog:PutBucketQuota",
	"GetBucketQuota":    "jog:GetBucketQuota",
	"DeleteBucketQuota": "jog:DeleteBucketQuota",

	"StartReplicationResync": "jog:StartReplicationResync",
	"GetReplicationResync":   "jog:GetReplicationResync",
}

func TestOpActionsMatchAWS(t *testing.T) {
	seen := 0
	for _, o := range routed.ops() {
		if extensions.has(o) {
			want, ok := jogActions[o.String()]
			if got := o.Actions(); !ok || want == "" && got != nil || want != "" && !slices.Equal(got, []string{want}) || o.SourceAction() != "" {
				t.Errorf("%s: actions %v, want [%s]", o, got, want)
			}
			continue
		}
		want, ok := awsActions[o.String()]
		if !ok {
			t.Errorf("%s: not in AWS's mapping as restated here; add it from the docs", o)
			continue
		}
		seen++
		if got := o.Actions(); !slices.Equal(got, want.actions) {
			t.Errorf("%s: actions %v, AWS documents %v", o, got, want.actions)
		}
		if got := o.SourceAction(); got != want.source {
			t.Errorf("%s: source action %q, AWS documents %q", o, got, want.source)
		}
	}
	if seen != len(awsActions) {
		t.Errorf("%d of the %d operations restated here are routed", seen, len(awsActions))
	}
}

// awsVersionActions is what AWS documents for requests that name a version,
// from the same references:
//   - GetObject: "If you include a versionId in your request header, you
//     must have the s3:GetObjectVersion permission ... The s3:GetObject
//     permission is not required in this scenario"; HeadObject alike;
//   - DeleteObject, DeleteObjects (per key): s3:DeleteObjectVersion;
//   - GetObjectAttributes: "If the bucket is versioned, you need both the
//     s3:GetObjectVersion and s3:GetObjectVersionAttributes permissions";
//   - Put/Get/DeleteObjectTagging: s3:PutObjectVersionTagging,
//     s3:GetObjectVersionTagging, s3:DeleteObjectVersionTagging;
//   - CopyObject, UploadPartCopy: s3:GetObjectVersion on a source that
//     names its version;
//   - the retention, legal-hold and ListObjectVersions actions have no
//     version variant.
var awsVersionActions = map[string]struct {
	actions []string
	source  string
}{
	"GetObject":           {[]string{"s3:GetObjectVersion"}, ""},
	"HeadObject":          {[]string{"s3:GetObjectVersion"}, ""},
	"DeleteObject":        {[]string{"s3:DeleteObjectVersion"}, ""},
	"DeleteObjects":       {[]string{"s3:DeleteObjectVersion"}, ""},
	"GetObjectAttributes": {[]string{"s3:GetObjectVersion", "s3:GetObjectVersionAttributes"}, ""},
	"PutObjectTagging":    {[]string{"s3:PutObjectVersionTagging"}, ""},
	"PutObjectAcl":        {[]string{"s3:PutObjectVersionAcl"}, ""},
	"GetObjectAcl":        {[]string{"s3:GetObjectVersionAcl"}, ""},
	"GetObjectTagging":    {[]string{"s3:GetObjectVersionTagging"}, ""},
	"DeleteObjectTagging": {[]string{"s3:DeleteObjectVersionTagging"}, ""},
	"CopyObject":          {nil, "s3:GetObjectVersion"},
	"UploadPartCopy":      {nil, "s3:GetObjectVersion"},
}

// TestOpVersionActionsMatchAWS checks the versioned table against AWS's
// mapping, and that a parsed request resolves to those actions when it
// names a version and to the usual ones when it does not.
func TestOpVersionActionsMatchAWS(t *testing.T) {
	for _, o := range routed.without(extensions.ops()...).ops() {
		want := awsVersionActions[o.String()]
		if got := o.VersionActions(); !slices.Equal(got, want.actions) {
			t.Errorf("%s: version actions %v, AWS documents %v", o, got, want.actions)
		}
		for _, a := range append(slices.Clone(o.VersionActions()), operations[o].version.source) {
			if a != "" && (!strings.HasPrefix(a, "s3:") || strings.ContainsAny(a, " *")) {
				t.Errorf("%s: IAM action %q", o, a)
			}
		}
		// A route without a version: the operation's actions.
		plain := Route{Op: o}
		if got := plain.Actions(); !slices.Equal(got, o.Actions()) {
			t.Errorf("%s without a version: actions %v, want %v", o, got, o.Actions())
		}
		if got := plain.SourceAction(); got != o.SourceAction() {
			t.Errorf("%s without a version: source action %q, want %q", o, got, o.SourceAction())
		}
		// A route naming one: AWS's version actions where it has some.
		// (ParseRoute never sets Version on DeleteObjects, a bucket route.)
		v := Route{Op: o, Version: true, SourceVersion: true}
		wantActs := want.actions
		if wantActs == nil {
			wantActs = awsActions[o.String()].actions
		}
		if got := v.Actions(); !slices.Equal(got, wantActs) {
			t.Errorf("%s with a version: actions %v, want %v", o, got, wantActs)
		}
		wantSrc := want.source
		if wantSrc == "" {
			wantSrc = awsActions[o.String()].source
		}
		if got := v.SourceAction(); got != wantSrc {
			t.Errorf("%s with a versioned source: source action %q, want %q", o, got, wantSrc)
		}
	}
	for name := range awsVersionActions {
		if !slices.ContainsFunc(routed.ops(), func(o Op) bool { return o.String() == name }) {
			t.Errorf("%s: in AWS's version mapping as restated here but not routed", name)
		}
	}
}

// TestRouteActions resolves the actions of requests as they arrive.
func TestRouteActions(t *testing.T) {
	cases := []struct {
		method, target, copySource string
		actions                    []string
		source                     string
	}{
		{"GET", "/b/k", "", []string{"s3:GetObject"}, ""},
		{"GET", "/b/k?versionId=3HL4kqtJlcpXroDTDmJ", "", []string{"s3:GetObjectVersion"}, ""},
		{"HEAD", "/b/k?versionId=null", "", []string{"s3:GetObjectVersion"}, ""},
		{"DELETE", "/b/k", "", []string{"s3:DeleteObject"}, ""},
		{"DELETE", "/b/k?versionId=v", "", []string{"s3:DeleteObjectVersion"}, ""},
		{"GET", "/b/k?attributes&versionId=v", "", []string{"s3:GetObjectVersion", "s3:GetObjectVersionAttributes"}, ""},
		{"GET", "/b/k?tagging&versionId=v", "", []string{"s3:GetObjectVersionTagging"}, ""},
		{"PUT", "/b/k?tagging&versionId=v", "", []string{"s3:PutObjectVersionTagging"}, ""},
		{"DELETE", "/b/k?tagging&versionId=v", "", []string{"s3:DeleteObjectVersionTagging"}, ""},
		{"GET", "/b/k?retention&versionId=v", "", []string{"s3:GetObjectRetention"}, ""},
		{"PUT", "/b/k?legal-hold&versionId=v", "", []string{"s3:PutObjectLegalHold"}, ""},
		{"GET", "/b?versions", "", []string{"s3:ListBucketVersions"}, ""},
		{"PUT", "/b/dst", "/src/k", []string{"s3:PutObject"}, "s3:GetObject"},
		{"PUT", "/b/dst", "/src/k?versionId=v", []string{"s3:PutObject"}, "s3:GetObjectVersion"},
		{"PUT", "/b/dst?partNumber=1&uploadId=u", "src/k?versionId=v", []string{"s3:PutObject"}, "s3:GetObjectVersion"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.target, nil)
		if c.copySource != "" {
			r.Header.Set("X-Amz-Copy-Source", c.copySource)
		}
		rt := ParseRoute(r, "")
		if got := rt.Actions(); !slices.Equal(got, c.actions) {
			t.Errorf("%s %s: actions %v, want %v", c.method, c.target, got, c.actions)
		}
		if got := rt.SourceAction(); got != c.source {
			t.Errorf("%s %s (copy source %q): source action %q, want %q", c.method, c.target, c.copySource, got, c.source)
		}
	}
}

// TestOpKinds pins the kind of the operations whose class a reservation or
// rate limit would get wrong most easily.
func TestOpKinds(t *testing.T) {
	for o, want := range map[Op]Kind{
		OpGetObject: KindRead, OpHeadObject: KindRead, OpGetObjectAttributes: KindRead,
		OpPutObject: KindWrite, OpCopyObject: KindWrite, OpUploadPart: KindWrite, OpUploadPartCopy: KindWrite,
		OpCompleteMultipartUpload: KindWrite, OpDeleteObject: KindWrite, OpDeleteObjects: KindWrite,
		OpListObjectsV2: KindList, OpListParts: KindList, OpListBuckets: KindList,
		OpHeadBucket: KindAdmin, OpCreateBucket: KindAdmin, OpPutBucketCors: KindAdmin,
		OpPutBucketVersioning: KindAdmin, OpGetBucketVersioning: KindAdmin, OpListObjectVersions: KindList,
		OpPreflight: KindNone, OpUnknown: KindNone, OpUnsupported: KindNone,
	} {
		if got := o.Kind(); got != want {
			t.Errorf("%s: kind %v, want %v", o, got, want)
		}
	}
}

// TestEventAndReservationOps restates the operations that emit event
// notifications (S3's event types: s3:ObjectCreated:Put, :Post, :Copy,
// :CompleteMultipartUpload; s3:ObjectRemoved:Delete and
// :DeleteMarkerCreated) and those that draw on a reservation
// (docs/QOS.md, and presentReservation's refusal), against the
// attributes of the operation table's rows.
func TestEventAndReservationOps(t *testing.T) {
	for _, c := range []struct {
		what string
		got  opSet
		want []Op
	}{
		{"emit events", notifying, []Op{OpPutObject, OpPostObject, OpCopyObject, OpCompleteMultipartUpload, OpDeleteObject, OpDeleteObjects}},
		{"draw on a reservation", reservationOps, []Op{OpGetObject, OpPutObject, OpUploadPart, OpUploadPartCopy}},
	} {
		slices.Sort(c.want)
		if got := c.got.ops(); !slices.Equal(got, c.want) {
			t.Errorf("operations that %s: %v, want %v", c.what, got, c.want)
		}
	}
}
