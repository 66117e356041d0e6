package iamapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/meta"
)

// action is one entry of the action table: the IAM action a policy names
// it by and the resource it acts on (what Config.Authorize decides on),
// and the code serving it, which returns the Result element's content
// (nil: the response has none).
type action struct {
	iamAction string
	resource  resourceFunc
	serve     func(h *Handler, r *request) (any, error)
	// policyKey and boundaryKey: the request has the condition keys
	// iam:PolicyARN and iam:PermissionsBoundary (conditionKeys).
	policyKey, boundaryKey bool
}

// actions is every Action served, by name: one lookup gives its IAM
// action name, its resource and its code.
var actions = buildActions()

// served is one Action's resource and code.
type served struct {
	resource resourceFunc
	serve    func(h *Handler, r *request) (any, error)
}

func buildActions() map[string]action {
	t := map[string]served{
		"CreateUser":          {userResource, (*Handler).createUser},
		"GetUser":             {userResource, (*Handler).getUser},
		"ListUsers":           {anyResource, (*Handler).listUsers},
		"DeleteUser":          {userResource, (*Handler).deleteUser},
		"CreateAccessKey":     {userResource, (*Handler).createAccessKey},
		"ListAccessKeys":      {userResource, (*Handler).listAccessKeys},
		"UpdateAccessKey":     {userResource, (*Handler).updateAccessKey},
		"DeleteAccessKey":     {userResource, (*Handler).deleteAccessKey},
		"CreateGroup":         {groupResource, (*Handler).createGroup},
		"GetGroup":            {groupResource, (*Handler).getGroup},
		"ListGroups":          {anyResource, (*Handler).listGroups},
		"DeleteGroup":         {groupResource, (*Handler).deleteGroup},
		"AddUserToGroup":      {groupResource, (*Handler).addUserToGroup},
		"RemoveUserFromGroup": {groupResource, (*Handler).removeUserFromGroup},
		"ListGroupsForUser":   {userResource, (*Handler).listGroupsForUser},
		"CreateRole":          {roleResource, (*Handler).createRole},
		"GetRole":             {roleResource, (*Handler).getRole},
		"ListRoles":           {anyResource, (*Handler).listRoles},
		"DeleteRole":          {roleResource, (*Handler).deleteRole},
		"CreatePolicy":        {newPolicyResource, (*Handler).createPolicy},
		"GetPolicy":           {policyResource, (*Handler).getPolicy},
		"ListPolicies":        {anyResource, (*Handler).listPolicies},
		"DeletePolicy":        {policyResource, (*Handler).deletePolicy},
		"GetPolicyVersion":    {policyResource, (*Handler).getPolicyVersion},
		"ListPolicyVersions":  {policyResource, (*Handler).listPolicyVersions},
	}
	for _, e := range []entityPolicies{{meta.EntityUser, "User"}, {meta.EntityGroup, "Group"}, {meta.EntityRole, "Role"}} {
		res := entityResource(e.kind, e.noun+"Name")
		t["Put"+e.noun+"Policy"] = served{res, e.put}
		t["Get"+e.noun+"Policy"] = served{res, e.get}
		t["List"+e.noun+"Policies"] = served{res, e.list}
		t["Delete"+e.noun+"Policy"] = served{res, e.delete}
		t["Attach"+e.noun+"Policy"] = served{res, e.attach}
		t["Detach"+e.noun+"Policy"] = served{res, e.detach}
		t["ListAttached"+e.noun+"Policies"] = served{res, e.listAttached}
		if e.kind != meta.EntityGroup { // groups have no permissions boundary
			t["Put"+e.noun+"PermissionsBoundary"] = served{res, e.putBoundary}
			t["Delete"+e.noun+"PermissionsBoundary"] = served{res, e.deleteBoundary}
		}
	}
	m := make(map[string]action, len(t))
	for name, f := range t {
		m[name] = action{iamAction: "iam:" + name, resource: f.resource, serve: f.serve}
	}
	// IAM's Service Authorization Reference: iam:PolicyARN on attaching
	// and detaching; iam:PermissionsBoundary on what changes a user's or
	// role's permissions.
	for _, noun := range []string{"User", "Group", "Role"} {
		for _, verb := range []string{"Attach", "Detach"} {
			a := m[verb+noun+"Policy"]
			a.policyKey = true
			m[verb+noun+"Policy"] = a
		}
	}
	for _, noun := range []string{"User", "Role"} {
		for _, name := range []string{"Create" + noun, "Put" + noun + "Policy", "Delete" + noun + "Policy", "Attach" + noun + "Policy",
			"Detach" + noun + "Policy", "Put" + noun + "PermissionsBoundary", "Delete" + noun + "PermissionsBoundary"} {
			a := m[name]
			a.boundaryKey = true
			m[name] = a
		}
	}
	return m
}

// IAMAction returns the IAM action name of an API Action ("CreateUser":
// "iam:CreateUser"), false for an Action not served.
func IAMAction(name string) (string, bool) {
	a, ok := actions[name]
	return a.iamAction, ok
}

// arg returns the required parameter name, or IAM's ValidationError
// naming it ("userName" for UserName) when it is absent.
func (r *request) arg(name string) (string, error) {
	v, ok := r.params[name]
	if !ok || len(v) == 0 {
		return "", errMissing(strings.ToLower(name[:1]) + name[1:])
	}
	return v[0], nil
}

// args returns the required parameters names, in order.
func (r *request) args(names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		var err error
		if out[i], err = r.arg(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *request) get(name string) string { return r.params.Get(name) }

// page reads PathPrefix, Marker and MaxItems.
func (r *request) page() (iam.Page, error) {
	p := iam.Page{PathPrefix: r.get("PathPrefix"), Marker: r.get("Marker")}
	if s := r.get("MaxItems"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > iam.MaxMaxItems {
			return p, apiErrorf(http.StatusBadRequest, "ValidationError", "1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and %d", s, iam.MaxMaxItems)
		}
		p.MaxItems = n
	}
	return p, nil
}

// pageOf cuts a listing the store returns whole to the page r asks for;
// the marker is the index of the next item.
func pageOf[T any](r *request, items []T) ([]T, truncation, error) {
	p, err := r.page()
	if err != nil {
		return nil, truncation{}, err
	}
	start := 0
	if p.Marker != "" {
		start, err = strconv.Atoi(p.Marker)
		if err != nil || start < 0 || start > len(items) {
			return nil, truncation{}, apiErrorf(http.StatusBadRequest, "ValidationError", "Invalid Marker %q.", p.Marker)
		}
	}
	n := p.MaxItems
	if n == 0 {
		n = iam.DefaultMaxItems
	}
	items = items[start:]
	if len(items) <= n {
		return items, truncation{}, nil
	}
	return items[:n], truncated(strconv.Itoa(start + n)), nil
}

func mapped[T, U any](items []T, f func(T) U) members[U] {
	out := make([]U, len(items))
	for i, it := range items {
		out[i] = f(it)
	}
	return members[U]{out}
}

// Users and access keys.

func (h *Handler) createUser(r *request) (any, error) {
	name, err := r.arg("UserName")
	if err != nil {
		return nil, err
	}
	u, err := h.svc.CreateUserWithBoundary(r.ctx, name, r.get("Path"), r.get("PermissionsBoundary"))
	return struct{ User userXML }{userDetail(u)}, err
}

// getUser without UserName answers about the caller.
func (h *Handler) getUser(r *request) (any, error) {
	name := r.get("UserName")
	if name == "" && r.caller != nil {
		name = r.caller.UserName
	}
	if name == "" {
		acct := h.svc.Account()
		return struct{ User userXML }{userXML{UserID: acct, Arn: "arn:aws:iam::" + acct + ":root", Created: isoTime(time.Unix(0, 0))}}, nil
	}
	u, err := h.svc.GetUser(r.ctx, name)
	return struct{ User userXML }{userDetail(u)}, err
}

func (h *Handler) listUsers(r *request) (any, error) {
	p, err := r.page()
	if err != nil {
		return nil, err
	}
	us, next, err := h.svc.ListUsers(r.ctx, p)
	return struct {
		Users members[userXML]
		truncation
	}{mapped(us, user), truncated(next)}, err
}

func (h *Handler) deleteUser(r *request) (any, error) {
	name, err := r.arg("UserName")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.DeleteUser(r.ctx, name)
}

func (h *Handler) createAccessKey(r *request) (any, error) {
	name, err := r.userName()
	if err != nil {
		return nil, err
	}
	k, err := h.svc.CreateAccessKey(r.ctx, name)
	if err != nil {
		return nil, err
	}
	return struct{ AccessKey accessKeyXML }{newAccessKey(k)}, nil
}

func (h *Handler) listAccessKeys(r *request) (any, error) {
	name, err := r.userName()
	if err != nil {
		return nil, err
	}
	keys, err := h.svc.ListAccessKeys(r.ctx, name)
	if err != nil {
		return nil, err
	}
	keys, tr, err := pageOf(r, keys)
	return struct {
		AccessKeyMetadata members[accessKeyXML]
		truncation
	}{mapped(keys, accessKey), tr}, err
}

func (h *Handler) updateAccessKey(r *request) (any, error) {
	name, err := r.userName()
	if err != nil {
		return nil, err
	}
	a, err := r.args("AccessKeyId", "Status")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.UpdateAccessKey(r.ctx, name, a[0], a[1])
}

func (h *Handler) deleteAccessKey(r *request) (any, error) {
	name, err := r.userName()
	if err != nil {
		return nil, err
	}
	id, err := r.arg("AccessKeyId")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.DeleteAccessKey(r.ctx, name, id)
}

// Groups.

func (h *Handler) createGroup(r *request) (any, error) {
	name, err := r.arg("GroupName")
	if err != nil {
		return nil, err
	}
	g, err := h.svc.CreateGroup(r.ctx, name, r.get("Path"))
	return struct{ Group groupXML }{group(g)}, err
}

func (h *Handler) getGroup(r *request) (any, error) {
	name, err := r.arg("GroupName")
	if err != nil {
		return nil, err
	}
	g, us, err := h.svc.GetGroup(r.ctx, name)
	if err != nil {
		return nil, err
	}
	us, tr, err := pageOf(r, us)
	return struct {
		Group groupXML
		Users members[userXML]
		truncation
	}{group(g), mapped(us, user), tr}, err
}

func (h *Handler) listGroups(r *request) (any, error) {
	p, err := r.page()
	if err != nil {
		return nil, err
	}
	gs, next, err := h.svc.ListGroups(r.ctx, p)
	return struct {
		Groups members[groupXML]
		truncation
	}{mapped(gs, group), truncated(next)}, err
}

func (h *Handler) deleteGroup(r *request) (any, error) {
	name, err := r.arg("GroupName")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.DeleteGroup(r.ctx, name)
}

func (h *Handler) addUserToGroup(r *request) (any, error) {
	a, err := r.args("GroupName", "UserName")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.AddUserToGroup(r.ctx, a[0], a[1])
}

func (h *Handler) removeUserFromGroup(r *request) (any, error) {
	a, err := r.args("GroupName", "UserName")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.RemoveUserFromGroup(r.ctx, a[0], a[1])
}

func (h *Handler) listGroupsForUser(r *request) (any, error) {
	name, err := r.arg("UserName")
	if err != nil {
		return nil, err
	}
	if _, err := h.svc.GetUser(r.ctx, name); err != nil {
		return nil, err
	}
	gs, err := h.svc.ListGroupsForUser(r.ctx, name)
	if err != nil {
		return nil, err
	}
	gs, tr, err := pageOf(r, gs)
	return struct {
		Groups members[groupXML]
		truncation
	}{mapped(gs, group), tr}, err
}

// Roles.

func (h *Handler) createRole(r *request) (any, error) {
	a, err := r.args("RoleName", "AssumeRolePolicyDocument")
	if err != nil {
		return nil, err
	}
	in := iam.RoleInput{Name: a[0], Path: r.get("Path"), TrustPolicy: []byte(a[1]), Description: r.get("Description"), Boundary: r.get("PermissionsBoundary")}
	if s := r.get("MaxSessionDuration"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, apiErrorf(http.StatusBadRequest, "ValidationError", "1 validation error detected: Value '%s' at 'maxSessionDuration' failed to satisfy constraint: Member must have value between 3600 and 43200", s)
		}
		in.MaxSessionDuration = time.Duration(n) * time.Second
	}
	e, err := h.svc.CreateRole(r.ctx, in)
	return struct{ Role roleXML }{roleDetail(e)}, err
}

func (h *Handler) getRole(r *request) (any, error) {
	name, err := r.arg("RoleName")
	if err != nil {
		return nil, err
	}
	e, err := h.svc.GetRole(r.ctx, name)
	return struct{ Role roleXML }{roleDetail(e)}, err
}

func (h *Handler) listRoles(r *request) (any, error) {
	p, err := r.page()
	if err != nil {
		return nil, err
	}
	rs, next, err := h.svc.ListRoles(r.ctx, p)
	return struct {
		Roles members[roleXML]
		truncation
	}{mapped(rs, role), truncated(next)}, err
}

func (h *Handler) deleteRole(r *request) (any, error) {
	name, err := r.arg("RoleName")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.DeleteRole(r.ctx, name)
}
