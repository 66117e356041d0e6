package iam

import (
	"regexp"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/meta"
)

// IAM's rules for names and paths (the IAM API reference's patterns and
// lengths). A name is letters, digits and +=,.@_-; a path is "/" or
// "/…/" of printable ASCII.
var (
	namePattern       = regexp.MustCompile(`^[\w+=,.@-]+$`)
	pathPattern       = regexp.MustCompile(`^(/|/[\x21-\x7e]+/)$`)
	pathPrefixPattern = regexp.MustCompile(`^/[\x21-\x7f]*$`)
)

// Name lengths IAM allows.
const (
	maxUserName   = 64
	maxGroupName  = 128
	maxRoleName   = 64
	maxPolicyName = 128
	maxPath       = 512
	maxRoleDesc   = 1000
)

// maxName is the longest name of each entity kind.
var maxName = map[meta.EntityKind]int{
	meta.EntityUser:  maxUserName,
	meta.EntityGroup: maxGroupName,
	meta.EntityRole:  maxRoleName,
}

// field is the parameter IAM names in a validation error about a name of
// kind.
var field = map[meta.EntityKind]string{
	meta.EntityUser:  "userName",
	meta.EntityGroup: "groupName",
	meta.EntityRole:  "roleName",
}

// checkName checks a name of field (e.g. "userName") of at most max
// characters, as IAM's ValidationError does.
func checkName(field, name string, max int) error {
	if n := utf8.RuneCountInString(name); n < 1 || n > max {
		return invalid(ErrValidation, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length between 1 and %d", name, field, max)
	}
	if !namePattern.MatchString(name) {
		return invalid(ErrValidation, `1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\w+=,.@-]+`, name, field)
	}
	return nil
}

// checkEntityName checks the name of a user, group or role.
func checkEntityName(kind meta.EntityKind, name string) error {
	return checkName(field[kind], name, maxName[kind])
}

// checkPath checks an entity's or policy's path; "" is "/".
func checkPath(path string) (string, error) {
	if path == "" {
		return "/", nil
	}
	if len(path) > maxPath || !pathPattern.MatchString(path) {
		return "", invalid(ErrValidation, "The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
	}
	return path, nil
}

// checkPathPrefix checks a listing's path prefix.
func checkPathPrefix(prefix string) error {
	if len(prefix) > maxPath || !pathPrefixPattern.MatchString(prefix) {
		return invalid(ErrValidation, "The specified value for pathPrefix is invalid. It must begin with /.")
	}
	return nil
}
