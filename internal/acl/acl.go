// Package acl is S3's access control lists: the AccessControlPolicy XML of
// Put/Get Bucket/Object Acl, the canned ACLs and x-amz-grant-* headers of
// writes, Object Ownership and PublicAccessBlock settings, and the
// translation of an ACL into the resource-policy allows it grants
// (Compile), which the authorizer evaluates beside the bucket policy.
//
// JOG serves one account: a grant to a canonical user ID changes no
// decision (the root may do everything; IAM users need identity
// policies, as in AWS). Only grants to the groups AllUsers (every
// request, anonymous too) and AuthenticatedUsers (every signed request)
// allow anything.
package acl

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
)

// Permissions.
const (
	FullControl = "FULL_CONTROL"
	Read        = "READ"
	Write       = "WRITE"
	ReadACP     = "READ_ACP"
	WriteACP    = "WRITE_ACP"
)

// Grantee types (xsi:type).
const (
	TypeUser  = "CanonicalUser"
	TypeGroup = "Group"
	TypeEmail = "AmazonCustomerByEmail"
)

// The predefined groups.
const (
	AllUsers           = "http://acs.amazonaws.com/groups/global/AllUsers"
	AuthenticatedUsers = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"
	LogDelivery        = "http://acs.amazonaws.com/groups/s3/LogDelivery"
)

// Grantee is who a grant is to: a canonical user (ID) or a group (URI).
type Grantee struct {
	Type string `json:"t"`
	ID   string `json:"id,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// Grant is one permission to one grantee.
type Grant struct {
	Grantee    Grantee `json:"g"`
	Permission string  `json:"p"`
}

// Error is an ACL S3 refuses: Code is S3's error code (MalformedACLError,
// InvalidArgument, UnresolvableGrantByEmailAddress, InvalidRequest), all
// 400.
type Error struct{ Code, Message string }

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// S3Error is what a client is told (s3api.ClientError).
func (e *Error) S3Error() (code string, status int, message string) {
	return e.Code, http.StatusBadRequest, e.Message
}

func malformed() error {
	return &Error{"MalformedACLError", "The XML you provided was not well-formed or did not validate against our published schema"}
}

var errEmail = &Error{"UnresolvableGrantByEmailAddress", "The e-mail address you provided does not match any account on record."}

func validPermission(p string) bool {
	switch p {
	case FullControl, Read, Write, ReadACP, WriteACP:
		return true
	}
	return false
}

func validGroup(uri string) bool {
	return uri == AllUsers || uri == AuthenticatedUsers || uri == LogDelivery
}

// Canned returns the grants of a canned ACL (x-amz-acl) for an owner's
// canonical ID: InvalidArgument for an unknown name. The bucket owner and
// the object owner are one account in JOG, so bucket-owner-read and
// bucket-owner-full-control are the owner's full control.
func Canned(name, owner string) ([]Grant, error) {
	g := []Grant{OwnerGrant(owner)}
	switch name {
	case "private", "bucket-owner-read", "bucket-owner-full-control":
	case "public-read":
		g = append(g, group(AllUsers, Read))
	case "public-read-write":
		g = append(g, group(AllUsers, Read), group(AllUsers, Write))
	case "authenticated-read":
		g = append(g, group(AuthenticatedUsers, Read))
	case "log-delivery-write":
		g = append(g, group(LogDelivery, Write), group(LogDelivery, ReadACP))
	default:
		return nil, &Error{"InvalidArgument", fmt.Sprintf("Invalid canned ACL %q", name)}
	}
	return g, nil
}

// OwnerGrant is the owner's full control, the private ACL's one grant.
func OwnerGrant(owner string) Grant {
	return Grant{Grantee{Type: TypeUser, ID: owner}, FullControl}
}

func group(uri, perm string) Grant { return Grant{Grantee{Type: TypeGroup, URI: uri}, perm} }

// grantHeaders maps x-amz-grant-* headers (canonical form) to permissions.
var grantHeaders = [...]struct{ name, perm string }{
	{"X-Amz-Grant-Full-Control", FullControl},
	{"X-Amz-Grant-Read", Read},
	{"X-Amz-Grant-Write", Write},
	{"X-Amz-Grant-Read-Acp", ReadACP},
	{"X-Amz-Grant-Write-Acp", WriteACP},
}

// HasHeaders reports whether a request sets an ACL by header (x-amz-acl
// or any x-amz-grant-*).
func HasHeaders(h http.Header) bool {
	if h.Get("X-Amz-Acl") != "" {
		return true
	}
	for _, gh := range grantHeaders {
		if h.Get(gh.name) != "" {
			return true
		}
	}
	return false
}

// FromHeaders returns the grants a request's x-amz-acl or x-amz-grant-*
// headers give (ok false when it has none). Both at once is
// InvalidRequest, as S3 answers.
func FromHeaders(h http.Header, owner string) (grants []Grant, ok bool, err error) {
	canned := h.Get("X-Amz-Acl")
	var explicit []Grant
	for _, gh := range grantHeaders {
		for _, v := range h.Values(gh.name) {
			gs, err := parseGrantHeader(v, gh.perm)
			if err != nil {
				return nil, false, err
			}
			explicit = append(explicit, gs...)
			ok = true
		}
	}
	switch {
	case canned != "" && ok:
		return nil, false, &Error{"InvalidRequest", "Specifying both Canned ACLs and Header Grants is not allowed"}
	case canned != "":
		g, err := Canned(canned, owner)
		return g, err == nil, err
	}
	return explicit, ok, nil
}

// parseGrantHeader reads a x-amz-grant-* value: grantees separated by
// commas, each id="…", uri="…" or emailAddress="…".
func parseGrantHeader(v, perm string) ([]Grant, error) {
	var out []Grant
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		k, val, found := strings.Cut(part, "=")
		if !found {
			return nil, &Error{"InvalidArgument", "Argument format not recognized"}
		}
		val = strings.Trim(strings.TrimSpace(val), `"`)
		var g Grantee
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "id":
			g = Grantee{Type: TypeUser, ID: val}
		case "uri":
			g = Grantee{Type: TypeGroup, URI: val}
		case "emailaddress":
			return nil, errEmail
		default:
			return nil, &Error{"InvalidArgument", "Argument format not recognized"}
		}
		if err := g.validate(); err != nil {
			return nil, err
		}
		out = append(out, Grant{g, perm})
	}
	return out, nil
}

func (g Grantee) validate() error {
	switch g.Type {
	case TypeUser:
		if g.ID == "" {
			return &Error{"InvalidArgument", "Invalid id"}
		}
	case TypeGroup:
		if !validGroup(g.URI) {
			return &Error{"InvalidArgument", "Invalid group uri"}
		}
	case TypeEmail:
		return errEmail
	default:
		return malformed()
	}
	return nil
}

// xmlPolicy is AccessControlPolicy as clients send it.
type xmlPolicy struct {
	XMLName xml.Name `xml:"AccessControlPolicy"`
	Owner   *struct {
		ID string `xml:"ID"`
	} `xml:"Owner"`
	Grants []struct {
		Grantee *struct {
			Type  string `xml:"type,attr"`
			ID    string `xml:"ID"`
			URI   string `xml:"URI"`
			Email string `xml:"EmailAddress"`
		} `xml:"Grantee"`
		Permission string `xml:"Permission"`
	} `xml:"AccessControlList>Grant"`
}

// ParseXML reads a Put*Acl body: MalformedACLError for a document that
// does not follow the schema, InvalidArgument for an unknown group,
// UnresolvableGrantByEmailAddress for an e-mail grantee. An Owner that is
// not owner is AccessDenied in S3; JOG has one owner, so it is
// InvalidArgument here only when empty.
func ParseXML(doc []byte) ([]Grant, error) {
	var p xmlPolicy
	if err := xml.NewDecoder(bytes.NewReader(doc)).Decode(&p); err != nil {
		return nil, malformed()
	}
	if p.Owner == nil || p.Owner.ID == "" {
		return nil, malformed()
	}
	grants := make([]Grant, 0, len(p.Grants))
	for _, x := range p.Grants {
		if x.Grantee == nil || !validPermission(x.Permission) {
			return nil, malformed()
		}
		g := Grantee{Type: x.Grantee.Type, ID: x.Grantee.ID, URI: x.Grantee.URI}
		if g.Type == TypeEmail || (g.Type == "" && x.Grantee.Email != "") {
			return nil, errEmail
		}
		if err := g.validate(); err != nil {
			return nil, err
		}
		grants = append(grants, Grant{g, x.Permission})
	}
	return grants, nil
}

// XML writes an AccessControlPolicy for Get*Acl.
func XML(owner, displayName string, grants []Grant) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>`)
	esc(&b, owner)
	b.WriteString("</ID><DisplayName>")
	esc(&b, displayName)
	b.WriteString("</DisplayName></Owner><AccessControlList>")
	for _, g := range grants {
		b.WriteString(`<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="`)
		b.WriteString(g.Grantee.Type)
		b.WriteString(`">`)
		if g.Grantee.Type == TypeGroup {
			b.WriteString("<URI>")
			esc(&b, g.Grantee.URI)
			b.WriteString("</URI>")
		} else {
			b.WriteString("<ID>")
			esc(&b, g.Grantee.ID)
			b.WriteString("</ID>")
			if g.Grantee.ID == owner {
				b.WriteString("<DisplayName>")
				esc(&b, displayName)
				b.WriteString("</DisplayName>")
			}
		}
		b.WriteString("</Grantee><Permission>")
		b.WriteString(g.Permission)
		b.WriteString("</Permission></Grant>")
	}
	b.WriteString("</AccessControlList></AccessControlPolicy>")
	return b.Bytes()
}

func esc(b *bytes.Buffer, s string) { _ = xml.EscapeText(b, []byte(s)) }

// Encode is the stored form of grants: "" for the private ACL (the
// owner's full control alone), else JSON.
func Encode(grants []Grant, owner string) string {
	if OwnerOnly(grants, owner) && len(grants) == 1 && grants[0].Permission == FullControl {
		return ""
	}
	b, _ := json.Marshal(grants) // plain strings: cannot fail
	return string(b)
}

// Decode reads a stored ACL ("" is the private ACL of owner).
func Decode(s, owner string) ([]Grant, error) {
	if s == "" {
		return []Grant{OwnerGrant(owner)}, nil
	}
	var g []Grant
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		return nil, fmt.Errorf("stored ACL: %w", err)
	}
	return g, nil
}

// OwnerOnly reports whether grants give nothing to anyone but owner: what
// a bucket with ACLs disabled (BucketOwnerEnforced) accepts.
func OwnerOnly(grants []Grant, owner string) bool {
	for _, g := range grants {
		if g.Grantee.Type != TypeUser || g.Grantee.ID != owner {
			return false
		}
	}
	return true
}

// IsPublic reports whether grants give anything to AllUsers or
// AuthenticatedUsers: a public ACL in S3's sense ("The meaning of
// public").
func IsPublic(grants []Grant) bool {
	for _, g := range grants {
		if g.Grantee.Type == TypeGroup && (g.Grantee.URI == AllUsers || g.Grantee.URI == AuthenticatedUsers) {
			return true
		}
	}
	return false
}

// GrantsLogDelivery reports whether grants let S3's log delivery group
// write server access logs into the bucket: WRITE and READ_ACP (or
// FULL_CONTROL) to LogDelivery, what the canned log-delivery-write gives
// and what S3 asked of a target bucket before bucket policies.
func GrantsLogDelivery(grants []Grant) bool {
	var write, readACP bool
	for _, g := range grants {
		if g.Grantee.Type != TypeGroup || g.Grantee.URI != LogDelivery {
			continue
		}
		switch g.Permission {
		case FullControl:
			return true
		case Write:
			write = true
		case ReadACP:
			readACP = true
		}
	}
	return write && readACP
}
