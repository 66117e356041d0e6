package iam

import (
	"context"

	"github.com/jogstore/jog/internal/meta"
)

// CreateGroup creates the group name under path ("" is "/").
func (s *Service) CreateGroup(ctx context.Context, name, path string) (meta.IAMEntity, error) {
	return s.createEntity(ctx, meta.IAMEntity{Kind: meta.EntityGroup, Name: name, Path: path}, prefixGroup)
}

// GetGroup returns the group name and its members, by name.
func (s *Service) GetGroup(ctx context.Context, name string) (meta.IAMEntity, []meta.IAMEntity, error) {
	g, err := s.store.GetEntity(ctx, meta.EntityGroup, name)
	if err != nil {
		return meta.IAMEntity{}, nil, err
	}
	members, err := s.store.GroupMembers(ctx, name)
	if err != nil {
		return meta.IAMEntity{}, nil, err
	}
	return g, members, nil
}

// ListGroups returns a page of groups, by name, and the next page's
// marker.
func (s *Service) ListGroups(ctx context.Context, p Page) ([]meta.IAMEntity, string, error) {
	return s.listEntities(ctx, meta.EntityGroup, p)
}

// ListGroupsForUser returns the groups user is in, by name.
func (s *Service) ListGroupsForUser(ctx context.Context, user string) ([]meta.IAMEntity, error) {
	return s.store.UserGroups(ctx, user)
}

// DeleteGroup deletes a group without members or policies
// (DeleteConflict otherwise, as IAM).
func (s *Service) DeleteGroup(ctx context.Context, name string) error {
	return s.changed(s.store.DeleteEntity(ctx, meta.EntityGroup, name))
}

// AddUserToGroup adds user to group; a member already is fine.
func (s *Service) AddUserToGroup(ctx context.Context, group, user string) error {
	return s.changed(s.store.AddGroupMember(ctx, group, user))
}

// RemoveUserFromGroup removes user from group (NoSuchEntity when it is
// not a member).
func (s *Service) RemoveUserFromGroup(ctx context.Context, group, user string) error {
	return s.changed(s.store.RemoveGroupMember(ctx, group, user))
}
