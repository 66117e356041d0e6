package acl

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam/policy"
)

const owner = "0123abcd"

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func TestCanned(t *testing.T) {
	cases := map[string][]Grant{
		"private":                   {OwnerGrant(owner)},
		"bucket-owner-full-control": {OwnerGrant(owner)},
		"bucket-owner-read":         {OwnerGrant(owner)},
		"public-read":               {OwnerGrant(owner), group(AllUsers, Read)},
		"public-read-write":         {OwnerGrant(owner), group(AllUsers, Read), group(AllUsers, Write)},
		"authenticated-read":        {OwnerGrant(owner), group(AuthenticatedUsers, Read)},
		"log-delivery-write":        {OwnerGrant(owner), group(LogDelivery, Write), group(LogDelivery, ReadACP)},
	}
	for name, want := range cases {
		got, err := Canned(name, owner)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Canned(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := Canned("public", owner); code(err) != "InvalidArgument" {
		t.Errorf("unknown canned ACL: %v", err)
	}
}

func TestFromHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("X-Amz-Grant-Read", `uri="http://acs.amazonaws.com/groups/global/AllUsers", id="abc"`)
	h.Set("X-Amz-Grant-Write-Acp", `id=def`)
	got, ok, err := FromHeaders(h, owner)
	want := []Grant{group(AllUsers, Read), {Grantee{Type: TypeUser, ID: "abc"}, Read}, {Grantee{Type: TypeUser, ID: "def"}, WriteACP}}
	if err != nil || !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("FromHeaders = %v %v %v, want %v", got, ok, err, want)
	}
	if _, ok, err := FromHeaders(http.Header{}, owner); ok || err != nil {
		t.Errorf("no headers: %v %v", ok, err)
	}
	bad := map[string]string{
		`emailAddress="a@b.c"`:                                "UnresolvableGrantByEmailAddress",
		`uri="http://acs.amazonaws.com/groups/global/Nobody"`: "InvalidArgument",
		`id`:       "InvalidArgument",
		`name="x"`: "InvalidArgument",
		`id=""`:    "InvalidArgument",
	}
	for v, want := range bad {
		h := http.Header{}
		h.Set("X-Amz-Grant-Full-Control", v)
		if _, _, err := FromHeaders(h, owner); code(err) != want {
			t.Errorf("x-amz-grant-full-control: %s: %v, want %s", v, err, want)
		}
	}
	h = http.Header{}
	h.Set("X-Amz-Acl", "private")
	h.Set("X-Amz-Grant-Read", `id="abc"`)
	if _, _, err := FromHeaders(h, owner); code(err) != "InvalidRequest" {
		t.Errorf("canned and grants: %v", err)
	}
	if !HasHeaders(h) || HasHeaders(http.Header{"X-Amz-Meta-A": {"1"}}) {
		t.Error("HasHeaders")
	}
}

func TestXMLRoundTrip(t *testing.T) {
	grants := []Grant{OwnerGrant(owner), group(AllUsers, Read), {Grantee{Type: TypeUser, ID: "other"}, WriteACP}}
	doc := XML(owner, "me", grants)
	if !strings.Contains(string(doc), `xsi:type="Group"`) || !strings.Contains(string(doc), "<DisplayName>me</DisplayName>") {
		t.Errorf("XML: %s", doc)
	}
	got, err := ParseXML(doc)
	if err != nil || !reflect.DeepEqual(got, grants) {
		t.Errorf("ParseXML(XML) = %v, %v; want %v", got, err, grants)
	}
}

func TestParseXMLErrors(t *testing.T) {
	grant := func(grantee, perm string) string {
		return `<AccessControlPolicy><Owner><ID>` + owner + `</ID></Owner><AccessControlList><Grant>` + grantee +
			`<Permission>` + perm + `</Permission></Grant></AccessControlList></AccessControlPolicy>`
	}
	xsi := `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" `
	cases := map[string]string{
		"not xml":  "MalformedACLError",
		"<Other/>": "MalformedACLError",
		`<AccessControlPolicy><AccessControlList/></AccessControlPolicy>`:             "MalformedACLError", // no owner
		grant(`<Grantee `+xsi+`xsi:type="CanonicalUser"><ID>x</ID></Grantee>`, "ALL"): "MalformedACLError",
		grant(``, "READ"): "MalformedACLError",
		grant(`<Grantee `+xsi+`xsi:type="Robot"><ID>x</ID></Grantee>`, "READ"):                                         "MalformedACLError",
		grant(`<Grantee `+xsi+`xsi:type="AmazonCustomerByEmail"><EmailAddress>a@b.c</EmailAddress></Grantee>`, "READ"): "UnresolvableGrantByEmailAddress",
		grant(`<Grantee `+xsi+`xsi:type="Group"><URI>http://example.com/g</URI></Grantee>`, "READ"):                    "InvalidArgument",
		grant(`<Grantee `+xsi+`xsi:type="CanonicalUser"><ID></ID></Grantee>`, "READ"):                                  "InvalidArgument",
	}
	for doc, want := range cases {
		if _, err := ParseXML([]byte(doc)); code(err) != want {
			t.Errorf("ParseXML(%s): %v, want %s", doc, err, want)
		}
	}
	ok := grant(`<Grantee `+xsi+`xsi:type="Group"><URI>`+AuthenticatedUsers+`</URI></Grantee>`, "READ_ACP")
	if g, err := ParseXML([]byte(ok)); err != nil || !reflect.DeepEqual(g, []Grant{group(AuthenticatedUsers, ReadACP)}) {
		t.Errorf("ParseXML(valid) = %v, %v", g, err)
	}
}

func TestEncodeDecode(t *testing.T) {
	if Encode([]Grant{OwnerGrant(owner)}, owner) != "" {
		t.Error("the private ACL is not stored as empty")
	}
	g := []Grant{OwnerGrant(owner), group(AllUsers, Read)}
	back, err := Decode(Encode(g, owner), owner)
	if err != nil || !reflect.DeepEqual(back, g) {
		t.Errorf("round trip: %v %v", back, err)
	}
	if p, _ := Decode("", owner); !reflect.DeepEqual(p, []Grant{OwnerGrant(owner)}) {
		t.Errorf("Decode(\"\") = %v", p)
	}
	if _, err := Decode("{", owner); err == nil {
		t.Error("a corrupt stored ACL decoded")
	}
	if !OwnerOnly([]Grant{OwnerGrant(owner), {Grantee{Type: TypeUser, ID: owner}, Read}}, owner) ||
		OwnerOnly(g, owner) || OwnerOnly([]Grant{{Grantee{Type: TypeUser, ID: "x"}, Read}}, owner) {
		t.Error("OwnerOnly")
	}
	if !IsPublic(g) || !IsPublic([]Grant{group(AuthenticatedUsers, ReadACP)}) || IsPublic([]Grant{group(LogDelivery, Write)}) {
		t.Error("IsPublic")
	}
	logWrite, _ := Canned("log-delivery-write", owner)
	if !GrantsLogDelivery(logWrite) || !GrantsLogDelivery([]Grant{group(LogDelivery, FullControl)}) ||
		GrantsLogDelivery([]Grant{group(LogDelivery, Write)}) || GrantsLogDelivery([]Grant{group(AllUsers, Write), group(AllUsers, ReadACP)}) ||
		GrantsLogDelivery(g) {
		t.Error("GrantsLogDelivery")
	}
}

func decide(c *policy.Compiled, who policy.PrincipalType, action, resource string) bool {
	pt := "Anonymous"
	if who == policy.User {
		pt = "User"
	}
	r := &policy.Request{Type: who, Account: "000000000000", ARN: "arn:aws:iam::000000000000:user/u",
		Action: action, Resource: resource, Time: time.Now(), Context: policy.Context{}}
	r.Context.Set("aws:PrincipalType", pt)
	return policy.Evaluate(r, &policy.Set{Resource: c}) == policy.Allowed
}

func TestCompile(t *testing.T) {
	const b, o = "arn:aws:s3:::b", "arn:aws:s3:::b/k"
	if Compile([]Grant{OwnerGrant(owner), {Grantee{Type: TypeUser, ID: "x"}, FullControl}, group(LogDelivery, Write)}, b, b, false) != nil {
		t.Error("grants to users and LogDelivery allow something")
	}
	bucket := Compile([]Grant{group(AllUsers, Read), group(AuthenticatedUsers, Write)}, b, b, false)
	cases := []struct {
		who              policy.PrincipalType
		action, resource string
		want             bool
	}{
		{policy.Anonymous, "s3:ListBucket", b, true},
		{policy.Anonymous, "s3:ListBucketVersions", b, true},
		{policy.Anonymous, "s3:ListBucketMultipartUploads", b, true},
		{policy.Anonymous, "s3:GetObject", o, false},
		{policy.Anonymous, "s3:GetBucketAcl", b, false},
		{policy.Anonymous, "s3:PutObject", o, false}, // WRITE went to AuthenticatedUsers
		{policy.User, "s3:PutObject", o, true},
		{policy.User, "s3:DeleteObject", o, true},
		{policy.User, "s3:DeleteObjectVersion", o, true},
		{policy.User, "s3:PutBucketAcl", b, false},
		{policy.User, "s3:PutObject", "arn:aws:s3:::other/k", false},
	}
	for _, c := range cases {
		if got := decide(bucket, c.who, c.action, c.resource); got != c.want {
			t.Errorf("bucket ACL: %v %s %s = %v, want %v", c.who, c.action, c.resource, got, c.want)
		}
	}
	obj := Compile([]Grant{group(AllUsers, FullControl)}, o, b, true)
	for _, a := range []string{"s3:GetObject", "s3:GetObjectVersion", "s3:GetObjectAcl", "s3:GetObjectVersionAcl", "s3:PutObjectAcl", "s3:PutObjectVersionAcl"} {
		if !decide(obj, policy.Anonymous, a, o) {
			t.Errorf("object FULL_CONTROL does not allow %s", a)
		}
	}
	for _, a := range []string{"s3:PutObject", "s3:DeleteObject", "s3:GetObjectTagging"} {
		if decide(obj, policy.Anonymous, a, o) {
			t.Errorf("object FULL_CONTROL allows %s", a)
		}
	}
	if decide(obj, policy.Anonymous, "s3:GetObject", "arn:aws:s3:::b/other") {
		t.Error("an object's ACL allows another object")
	}
	bacp := Compile([]Grant{group(AllUsers, ReadACP), group(AllUsers, WriteACP)}, b, b, false)
	if !decide(bacp, policy.Anonymous, "s3:GetBucketAcl", b) || !decide(bacp, policy.Anonymous, "s3:PutBucketAcl", b) {
		t.Error("bucket READ_ACP / WRITE_ACP")
	}
}

func TestSettings(t *testing.T) {
	if s, ok := ParseOwnershipXML(OwnershipXML(ObjectWriter)); !ok || s != ObjectWriter {
		t.Errorf("ownership round trip: %q %v", s, ok)
	}
	for _, doc := range []string{"", "<OwnershipControls/>", "<OwnershipControls><Rule><ObjectOwnership>Mine</ObjectOwnership></Rule></OwnershipControls>",
		"<OwnershipControls><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership></Rule><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership></Rule></OwnershipControls>"} {
		if _, ok := ParseOwnershipXML([]byte(doc)); ok {
			t.Errorf("ParseOwnershipXML(%q) accepted", doc)
		}
	}
	p := PublicAccessBlock{BlockPublicAcls: true, RestrictPublicBuckets: true}
	if got, ok := ParsePublicAccessBlockXML(p.XML()); !ok || got != p {
		t.Errorf("public access block round trip: %+v %v", got, ok)
	}
	if got, ok := ParsePublicAccessBlockXML([]byte("<PublicAccessBlockConfiguration><IgnorePublicAcls>TRUE</IgnorePublicAcls></PublicAccessBlockConfiguration>")); !ok || got != (PublicAccessBlock{IgnorePublicAcls: true}) {
		t.Errorf("TRUE: %+v %v", got, ok)
	}
	for _, doc := range []string{"x", "<Other/>", "<PublicAccessBlockConfiguration><BlockPublicAcls>yes</BlockPublicAcls></PublicAccessBlockConfiguration>",
		"<PublicAccessBlockConfiguration><Unknown>true</Unknown></PublicAccessBlockConfiguration>"} {
		if _, ok := ParsePublicAccessBlockXML([]byte(doc)); ok {
			t.Errorf("ParsePublicAccessBlockXML(%q) accepted", doc)
		}
	}
}
