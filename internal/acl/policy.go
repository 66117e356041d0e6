package acl

import (
	"github.com/jogstore/jog/internal/iam/policy"
)

// The IAM actions each permission grants, from AWS's table "Mapping of ACL
// permissions and access policy permissions" (S3 User Guide, "Access
// control list (ACL) overview"). WRITE on a bucket acts on its objects.
var (
	bucketActions = map[string][]string{
		Read:     {"s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads"},
		ReadACP:  {"s3:GetBucketAcl"},
		WriteACP: {"s3:PutBucketAcl"},
	}
	bucketWrite   = []string{"s3:PutObject", "s3:DeleteObject", "s3:DeleteObjectVersion"}
	objectActions = map[string][]string{
		Read:     {"s3:GetObject", "s3:GetObjectVersion"},
		ReadACP:  {"s3:GetObjectAcl", "s3:GetObjectVersionAcl"},
		WriteACP: {"s3:PutObjectAcl", "s3:PutObjectVersionAcl"},
	}
)

// Compile turns the public grants of an ACL into a resource policy of
// Allow statements: a grant to AllUsers allows every principal (Principal
// "*"), one to AuthenticatedUsers every principal but an anonymous one.
// Other grants allow nothing in JOG's one account (see the package
// comment). resource is the bucket's or the object's ARN; bucketARN is
// the bucket's, for the object actions of a bucket's WRITE. The result is
// nil when nothing is granted.
func Compile(grants []Grant, resource, bucketARN string, object bool) *policy.Compiled {
	p := &policy.Policy{Version: policy.Version2012, Kind: policy.Resource}
	for _, g := range grants {
		if g.Grantee.Type != TypeGroup {
			continue
		}
		var conds []policy.Condition
		switch g.Grantee.URI {
		case AllUsers:
		case AuthenticatedUsers:
			conds = []policy.Condition{{Operator: "StringNotEquals", Key: "aws:PrincipalType", Values: []string{"Anonymous"}}}
		default:
			continue
		}
		perms := []string{g.Permission}
		if g.Permission == FullControl {
			perms = []string{Read, Write, ReadACP, WriteACP}
		}
		for _, perm := range perms {
			st := policy.Statement{Effect: policy.Allow, Principal: &policy.Principal{Wildcard: true}, Conditions: conds}
			switch {
			case object:
				st.Action, st.Resource = objectActions[perm], []string{resource}
			case perm == Write:
				st.Action, st.Resource = bucketWrite, []string{bucketARN + "/*"}
			default:
				st.Action, st.Resource = bucketActions[perm], []string{resource}
			}
			if len(st.Action) > 0 {
				p.Statements = append(p.Statements, st)
			}
		}
	}
	if len(p.Statements) == 0 {
		return nil
	}
	c, err := policy.Compile(p)
	if err != nil { // statements built here: a bug
		panic(err)
	}
	return c
}
