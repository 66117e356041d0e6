package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// IAM's and S3's size quotas. IAM counts the characters of a document that
// are not white space; S3 counts a bucket policy's bytes. Parse enforces
// the largest quota of each kind; a caller checks the one that applies
// (a user's inline policies together, a managed policy) with CheckSize.
const (
	MaxManagedPolicy     = 6144  // a managed policy (PolicySize)
	MaxUserInline        = 2048  // all of a user's inline policies (UserPolicySize)
	MaxGroupInline       = 5120  // all of a group's inline policies
	MaxRoleInline        = 10240 // all of a role's inline policies
	MaxTrustPolicy       = 2048  // a role's trust policy (AssumeRolePolicySize)
	MaxSessionPolicy     = 2048  // an STS session policy
	MaxBucketPolicyBytes = 20 * 1024
)

// SizeError is a policy over a size quota: IAM answers LimitExceeded
// ("Cannot exceed quota for PolicySize: 6144"), S3 a MalformedPolicy.
type SizeError struct {
	Quota string // IAM's quota name, e.g. "PolicySize"
	Limit int
	Size  int
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("Cannot exceed quota for %s: %d", e.Quota, e.Limit)
}

// Size is the length IAM measures a policy by: its characters other than
// white space.
func Size(doc []byte) int {
	n := 0
	for _, r := range string(doc) {
		switch r {
		case ' ', '\t', '\r', '\n':
		default:
			n++
		}
	}
	return n
}

// CheckSize refuses an identity or trust policy of more than limit
// characters other than white space, naming quota in the error.
func CheckSize(doc []byte, quota string, limit int) error {
	if n := Size(doc); n > limit {
		return &SizeError{Quota: quota, Limit: limit, Size: n}
	}
	return nil
}

// checkDocument applies the limits of the kind before the document is
// parsed: its size and, for IAM documents, IAM's character set (tab, line
// feed, carriage return and U+0020 to U+00FF).
func checkDocument(doc []byte, kind Kind) error {
	if !utf8.Valid(doc) {
		return errSyntax
	}
	switch kind {
	case Resource:
		if len(doc) > MaxBucketPolicyBytes {
			return &SizeError{Quota: "BucketPolicySize", Limit: MaxBucketPolicyBytes, Size: len(doc)}
		}
		return nil
	case Trust:
		if err := CheckSize(doc, "AssumeRolePolicySize", MaxTrustPolicy); err != nil {
			return err
		}
	default:
		if err := CheckSize(doc, "PolicySize", MaxRoleInline); err != nil {
			return err
		}
	}
	for _, r := range string(doc) {
		if r != '\t' && r != '\n' && r != '\r' && (r < 0x20 || r > 0xFF) {
			return malformed("Policy document contains a character outside the allowed set (tab, line feed, carriage return, U+0020 to U+00FF)")
		}
	}
	return nil
}

func validateStatement(st *Statement, kind Kind) error {
	if kind != Resource {
		for _, r := range st.Sid {
			if !isAlnum(r) {
				return malformed("Statement IDs (SID) must be alpha-numeric. Check that your input satisfies the regular expression [0-9A-Za-z]*")
			}
		}
	}
	switch st.Effect {
	case Allow, Deny:
	case "":
		return malformed("Missing required field Effect")
	default:
		return malformed("Invalid effect: %s", st.Effect)
	}
	if err := validatePrincipals(st, kind); err != nil {
		return err
	}
	switch {
	case st.Action != nil && st.NotAction != nil:
		return malformed("Statement can't contain both Action and NotAction")
	case st.Action == nil && st.NotAction == nil:
		return malformed("Missing required field Action")
	}
	for _, a := range append(st.Action, st.NotAction...) {
		if err := validateAction(a); err != nil {
			return err
		}
	}
	hasResource := st.Resource != nil || st.NotResource != nil
	switch {
	case kind == Trust && hasResource:
		return malformed("Has prohibited field Resource")
	case st.Resource != nil && st.NotResource != nil:
		return malformed("Statement can't contain both Resource and NotResource")
	case kind != Trust && !hasResource:
		return malformed("Missing required field Resource")
	}
	for _, r := range append(st.Resource, st.NotResource...) {
		if err := validateResource(r, kind); err != nil {
			return err
		}
	}
	return nil
}

func validatePrincipals(st *Statement, kind Kind) error {
	has := st.Principal != nil || st.NotPrincipal != nil
	switch {
	case kind == Identity && has:
		return malformed("Policy document should not specify a principal.")
	case kind != Identity && !has:
		return malformed("Missing required field Principal")
	case st.Principal != nil && st.NotPrincipal != nil:
		return malformed("Statement can't contain both Principal and NotPrincipal")
	}
	for _, p := range []*Principal{st.Principal, st.NotPrincipal} {
		if p == nil || p.Wildcard {
			continue
		}
		for _, id := range p.AWS {
			if !validAWSPrincipal(id) {
				return malformed("Invalid principal in policy")
			}
		}
		for _, list := range [][]string{p.CanonicalUser, p.Service, p.Federated} {
			for _, id := range list {
				if id == "" {
					return malformed("Invalid principal in policy")
				}
			}
		}
	}
	return nil
}

// validAWSPrincipal accepts "*", a 12-digit account ID and an IAM or STS
// ARN (arn:partition:iam::account:… or arn:partition:sts::account:…).
func validAWSPrincipal(id string) bool {
	if id == "*" || isAccountID(id) {
		return true
	}
	if strings.ContainsAny(id, "*?") {
		return false // no wildcard within a principal ARN
	}
	parts := strings.SplitN(id, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[3] != "" || parts[5] == "" {
		return false
	}
	return (parts[2] == "iam" || parts[2] == "sts") && isAccountID(parts[4])
}

func isAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// validateAction accepts "*" and "vendor:pattern".
func validateAction(a string) error {
	if a == "*" {
		return nil
	}
	vendor, name, ok := strings.Cut(a, ":")
	switch {
	case !ok:
		return malformed("Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.")
	case strings.Contains(name, ":"):
		return malformed("Actions/Condition can contain only one colon.")
	case vendor == "" || name == "":
		return malformed("Policy has invalid action")
	}
	for _, r := range vendor {
		if !isAlnum(r) && r != '-' {
			return malformed("Vendor %s is not valid", vendor)
		}
	}
	return nil
}

// validateResource accepts "*" and an ARN: arn:partition:service:region:
// account:resource, the resource part free to hold colons and wildcards.
func validateResource(r string, kind Kind) error {
	if r == "*" {
		return nil
	}
	parts := strings.SplitN(r, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] == "" {
		if kind == Resource {
			return malformed("Policy has invalid resource")
		}
		return malformed("Resource %s must be in ARN format or \"*\".", r)
	}
	if strings.ContainsAny(parts[2], "*?") {
		return malformed("Resource vendor must be fully qualified and cannot contain regexes.")
	}
	return nil
}
