package authz

import (
	"net/netip"
	"strings"

	"github.com/jogstore/jog/internal/iam/policy"
)

// ParseBucketPolicy parses and validates bucket's policy document as S3
// does on PutBucketPolicy: a resource policy (policy.Parse's *policy.Error,
// S3's MalformedPolicy, with the reason) whose every Resource and
// NotResource is the bucket or within it ("Policy has invalid resource").
func ParseBucketPolicy(doc []byte, bucket string) (*policy.Policy, error) {
	p, err := policy.Parse(doc, policy.Resource)
	if err != nil {
		return nil, err
	}
	b := BucketARN(bucket)
	for _, st := range p.Statements {
		for _, r := range append(append([]string(nil), st.Resource...), st.NotResource...) {
			if r != b && !strings.HasPrefix(r, b+"/") {
				return nil, &policy.Error{Reason: "Policy has invalid resource"}
			}
		}
	}
	return p, nil
}

// IsPublic reports whether a bucket policy grants public access by AWS's
// definition (S3 User Guide, "The meaning of public"): some Allow statement
// names every principal (Principal "*", or a NotPrincipal) without a
// condition that fixes who or where the requester is to a value that is
// not a wildcard: aws:SourceIp to a range narrower than the whole address
// space, aws:SourceArn, aws:SourceVpc, aws:SourceVpce, aws:SourceAccount,
// aws:SourceOwner, aws:PrincipalAccount, aws:PrincipalArn,
// aws:PrincipalOrgID, aws:userid, s3:DataAccessPointArn,
// s3:DataAccessPointAccount or s3:x-amz-server-side-encryption-aws-kms-key-id
// (the list of PublicAccessBlockConfiguration's API reference, with the
// principal keys of the User Guide's).
func IsPublic(p *policy.Policy) bool {
	for _, st := range p.Statements {
		if st.Effect != policy.Allow || !everyone(&st) {
			continue
		}
		if !narrowed(st.Conditions) {
			return true
		}
	}
	return false
}

func everyone(st *policy.Statement) bool {
	if st.NotPrincipal != nil {
		return true
	}
	pr := st.Principal
	if pr == nil {
		return false
	}
	if pr.Wildcard {
		return true
	}
	for _, id := range pr.AWS {
		if id == "*" {
			return true
		}
	}
	return false
}

// narrowingKeys are the condition keys that make a statement non-public
// when fixed to a value without wildcards (lower case).
var narrowingKeys = map[string]bool{
	"aws:sourcearn": true, "aws:sourcevpc": true, "aws:sourcevpce": true,
	"aws:sourceaccount": true, "aws:sourceowner": true, "aws:principalaccount": true,
	"aws:principalarn": true, "aws:principalorgid": true, "aws:userid": true,
	"s3:dataaccesspointarn": true, "s3:dataaccesspointaccount": true,
	"s3:x-amz-server-side-encryption-aws-kms-key-id": true,
}

// narrowed reports whether a statement's conditions fix a narrowing key.
func narrowed(conds []policy.Condition) bool {
	for _, c := range conds {
		op := strings.ToLower(c.Operator)
		if strings.HasPrefix(op, "forallvalues:") || strings.HasSuffix(op, "ifexists") || strings.Contains(op, "not") {
			continue // satisfied by a request without the key, or by any other value
		}
		key := strings.ToLower(c.Key)
		switch {
		case key == "aws:sourceip" && op == "ipaddress":
			if len(c.Values) > 0 && !anyWholeRange(c.Values) {
				return true
			}
		case narrowingKeys[key]:
			if len(c.Values) > 0 && !anyWildcard(c.Values) &&
				(strings.HasPrefix(op, "string") || strings.HasPrefix(op, "arn") || strings.HasPrefix(op, "foranyvalue:")) {
				return true
			}
		}
	}
	return false
}

func anyWildcard(vs []string) bool {
	for _, v := range vs {
		if v == "" || strings.ContainsAny(v, "*?") {
			return true
		}
	}
	return false
}

// anyWholeRange reports whether some CIDR covers a whole address family
// (or does not parse: treated as covering everything).
func anyWholeRange(vs []string) bool {
	for _, v := range vs {
		pfx, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return true
			}
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		if pfx.Bits() == 0 {
			return true
		}
	}
	return false
}
