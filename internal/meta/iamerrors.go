package meta

// The IAM errors both stores return, worded as IAM words them.

// Title is the kind capitalised, as IAM's messages begin with it: "User".
func (k EntityKind) Title() string {
	switch k {
	case EntityUser:
		return "User"
	case EntityGroup:
		return "Group"
	case EntityRole:
		return "Role"
	}
	return k.String()
}

// NoSuchEntity is ErrNoSuchEntity for the user, group or role name.
func NoSuchEntity(kind EntityKind, name string) error {
	return IAMErrorf(ErrNoSuchEntity, "The %s with name %s cannot be found.", kind, name)
}

// NoSuchAccessKey is ErrNoSuchEntity for access key id.
func NoSuchAccessKey(id string) error {
	return IAMErrorf(ErrNoSuchEntity, "The Access Key with id %s cannot be found.", id)
}

// NoSuchPolicy is ErrNoSuchEntity for the managed policy arn.
func NoSuchPolicy(arn string) error {
	return IAMErrorf(ErrNoSuchEntity, "Policy %s does not exist or is not attachable.", arn)
}

// NoSuchInlinePolicy is ErrNoSuchEntity for an entity's inline policy name.
func NoSuchInlinePolicy(kind EntityKind, name string) error {
	return IAMErrorf(ErrNoSuchEntity, "The %s policy with name %s cannot be found.", kind, name)
}
