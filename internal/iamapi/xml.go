package iamapi

import (
	"encoding/xml"
	"net/url"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/meta"
)

// The response shapes, with the member names of botocore's IAM model
// (service-2.json, 2010-05-08): SDKs parse them by name.

// members is a list as the query protocol writes it: <member> elements,
// the list element present even when empty.
type members[T any] struct {
	Member []T `xml:"member"`
}

// truncation ends every listing: IsTruncated, and the Marker of the next
// page when it is.
type truncation struct {
	IsTruncated bool
	Marker      string `xml:",omitempty"`
}

func truncated(next string) truncation { return truncation{IsTruncated: next != "", Marker: next} }

// isoTime is IAM's date-time form.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// encodeDocument URL-encodes a policy document as IAM returns it (RFC
// 3986: every byte but A-Z a-z 0-9 - _ . ~ as %XX, a space %20).
func encodeDocument(doc []byte) string {
	return strings.ReplaceAll(url.QueryEscape(string(doc)), "+", "%20")
}

type userXML struct {
	Path     string `xml:",omitempty"`
	UserName string `xml:",omitempty"`
	UserID   string `xml:"UserId"`
	Arn      string
	Created  string `xml:"CreateDate"`
	// PermissionsBoundary: not in listings, as IAM's (userDetail).
	PermissionsBoundary *boundaryXML `xml:",omitempty"`
}

// boundaryXML is an entity's permissions boundary.
type boundaryXML struct {
	PermissionsBoundaryType string
	PermissionsBoundaryArn  string
}

// boundary is e's permissions boundary, nil when it has none.
func boundary(e meta.IAMEntity) *boundaryXML {
	if e.Boundary == "" {
		return nil
	}
	return &boundaryXML{"Policy", e.Boundary}
}

// userDetail is user with its permissions boundary: GetUser's and
// CreateUser's.
func userDetail(e meta.IAMEntity) userXML {
	x := user(e)
	x.PermissionsBoundary = boundary(e)
	return x
}

func user(e meta.IAMEntity) userXML {
	return userXML{Path: e.Path, UserName: e.Name, UserID: e.ID, Arn: e.ARN, Created: isoTime(e.Created)}
}

type groupXML struct {
	Path      string
	GroupName string
	GroupID   string `xml:"GroupId"`
	Arn       string
	Created   string `xml:"CreateDate"`
}

func group(e meta.IAMEntity) groupXML {
	return groupXML{Path: e.Path, GroupName: e.Name, GroupID: e.ID, Arn: e.ARN, Created: isoTime(e.Created)}
}

type roleXML struct {
	Path                     string
	RoleName                 string
	RoleID                   string `xml:"RoleId"`
	Arn                      string
	Created                  string `xml:"CreateDate"`
	AssumeRolePolicyDocument string `xml:",omitempty"`
	Description              string `xml:",omitempty"`
	MaxSessionDuration       int64  `xml:",omitempty"`
	// PermissionsBoundary: not in listings, as IAM's (roleDetail).
	PermissionsBoundary *boundaryXML `xml:",omitempty"`
}

// roleDetail is role with its permissions boundary: GetRole's and
// CreateRole's.
func roleDetail(e meta.IAMEntity) roleXML {
	x := role(e)
	x.PermissionsBoundary = boundary(e)
	return x
}

func role(e meta.IAMEntity) roleXML {
	return roleXML{Path: e.Path, RoleName: e.Name, RoleID: e.ID, Arn: e.ARN, Created: isoTime(e.Created),
		AssumeRolePolicyDocument: encodeDocument(e.TrustPolicy), Description: e.Description,
		MaxSessionDuration: int64(e.MaxSessionDuration / time.Second)}
}

// accessKeyXML is AccessKey (with its secret, CreateAccessKey only) and
// AccessKeyMetadata (without).
type accessKeyXML struct {
	UserName        string
	AccessKeyID     string `xml:"AccessKeyId"`
	Status          string
	SecretAccessKey string `xml:",omitempty"`
	Created         string `xml:"CreateDate"`
}

func accessKey(k meta.AccessKey) accessKeyXML {
	return accessKeyXML{UserName: k.User, AccessKeyID: k.ID, Status: k.Status, Created: isoTime(k.Created)}
}

func newAccessKey(k iam.NewAccessKey) accessKeyXML {
	x := accessKey(k.AccessKey)
	x.SecretAccessKey = k.Secret.Reveal()
	return x
}

type policyXML struct {
	PolicyName                    string
	PolicyID                      string `xml:"PolicyId"`
	Arn                           string
	Path                          string
	DefaultVersionID              string `xml:"DefaultVersionId"`
	AttachmentCount               int
	PermissionsBoundaryUsageCount int
	IsAttachable                  bool
	Description                   string `xml:",omitempty"`
	Created                       string `xml:"CreateDate"`
	Updated                       string `xml:"UpdateDate"`
}

func managedPolicy(p meta.ManagedPolicy) policyXML {
	return policyXML{PolicyName: p.Name, PolicyID: p.ID, Arn: p.ARN, Path: p.Path, DefaultVersionID: p.DefaultVersion,
		AttachmentCount: p.AttachmentCount, PermissionsBoundaryUsageCount: p.BoundaryCount, IsAttachable: true, Description: p.Description,
		Created: isoTime(p.Created), Updated: isoTime(p.Updated)}
}

type policyVersionXML struct {
	Document         string `xml:",omitempty"`
	VersionID        string `xml:"VersionId"`
	IsDefaultVersion bool
	Created          string `xml:"CreateDate"`
}

type attachedPolicyXML struct {
	PolicyName string
	PolicyArn  string
}

// inlinePolicyResult is Get{User,Group,Role}PolicyResult: <UserName> (or
// GroupName, RoleName), PolicyName, PolicyDocument.
type inlinePolicyResult struct {
	noun, entity string
	p            meta.InlinePolicy
}

func (r inlinePolicyResult) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	for _, f := range [][2]string{{r.noun + "Name", r.entity}, {"PolicyName", r.p.Name}, {"PolicyDocument", encodeDocument(r.p.Document)}} {
		if err := e.EncodeElement(f[1], xml.StartElement{Name: xml.Name{Local: f[0]}}); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}
