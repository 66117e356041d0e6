package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/jogstore/jog/internal/sigv4"
)

const adminUsage = `Usage: jog admin [flags] <command> ...

Administer a JOG server's users, keys, groups, policies and roles through
its IAM API (what "aws iam" calls), signed with the root credentials; ask
its STS API for temporary credentials (what "aws sts" calls); reserve a
bucket's throughput (see "jog admin reservation"); manage the keys of
encryption at rest in a data dir (see "jog admin kms", which works on the
data dir, not through the API).

  user create NAME | list | delete NAME
  key create USER | list USER | disable USER KEYID | enable USER KEYID | delete USER KEYID
  group create NAME | delete NAME | list | add GROUP USER | remove GROUP USER
  policy create NAME FILE | list | delete POLICY | attach USER POLICY | detach USER POLICY
                         (POLICY: a name, or an ARN)
  user-policy put USER NAME FILE | get USER NAME | delete USER NAME
  role create NAME TRUSTFILE | list | delete NAME
  sts assume-role ROLEARN SESSIONNAME | session-token | identity
                         (credentials as key ID, secret, session token, expiration)
  reservation create [flags] BUCKET | ls BUCKET | show BUCKET ID | rm BUCKET ID
  replication resync BUCKET | status BUCKET
                         (queue again the versions bucket replication
                         rules select that were never replicated or
                         FAILED; status: the resync's progress)
  kms create [--description TEXT] ID | list | describe ID | enable ID | disable ID
      | rotate ID | rotate-master     (flags after the command: --data-dir DIR)

A listing prints a header line, then one row a line, tab-separated (or
"no users"); one result prints labelled lines (AccessKeyId: …); an action
confirms what it did in one line. --json (before or after the command)
prints the same fields by name: a listing as an array. Any other
word beginning with - is an unknown flag: put -- before a name that does.

Flags (before the command):
`

// admin is a client of a server's IAM API.
type admin struct {
	endpoint, access, secret, token, region string
	client                                  *http.Client
	printer
}

func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog admin", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), adminUsage); fs.PrintDefaults() }
	a := &admin{client: &http.Client{Timeout: time.Minute}, printer: printer{out: stdout}, region: sigv4.DefaultRegion, endpoint: defaultEndpoint}
	endpointFlag.bind(fs, &a.endpoint)
	bindCredentials(fs, &a.access, &a.secret, &a.token, &a.region)
	fs.BoolVar(&a.json, "json", false, "print the answer as JSON: the fields by name (also after the command)")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	rest := fs.Args()
	rest, j := takeJSON(rest)
	a.json = a.json || j
	if len(rest) >= 1 && rest[0] == "reservation" {
		return runReservation(ctx, a, rest[1:], stdout, stderr)
	}
	if len(rest) >= 1 && rest[0] == "kms" {
		return runKMS(ctx, rest[1:], a.printer, stderr)
	}
	if helpAsked(rest) {
		return printHelp(fs, stdout)
	}
	rest, err := argsOf(rest)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
	}
	if err != nil || len(rest) < 2 {
		fs.Usage()
		return 2
	}
	cmd, ok := adminCommands[rest[0]+" "+rest[1]]
	if !ok || len(rest)-2 != len(cmd.args) {
		fmt.Fprintf(stderr, "jog admin: unknown command or wrong arguments: %s\n\n", strings.Join(rest, " "))
		fs.Usage()
		return 2
	}
	if err := cmd.run(ctx, a, rest[2:]); err != nil {
		fmt.Fprintln(stderr, "jog admin:", err)
		return 1
	}
	return 0
}

// adminNested are jog admin's commands: "user create", "reservation ls".
func adminNested() []string {
	cmds := sortedKeys(adminCommands)
	for _, r := range reservationNested() {
		cmds = append(cmds, "reservation "+r)
	}
	for _, k := range kmsNested() {
		cmds = append(cmds, "kms "+k)
	}
	return cmds
}

// adminCommand is one "noun verb" of jog admin: its arguments' names and
// what it does.
type adminCommand struct {
	args []string
	run  func(ctx context.Context, a *admin, args []string) error
}

// call runs an IAM action with a shape: the action's parameters
// (name, value pairs) and, for the output, the element holding each row
// ("member": a listing) and the fields of a row to print.
func call(action string, params []string, row string, fields ...string) adminCommand {
	return adminCommand{args: params, run: func(ctx context.Context, a *admin, args []string) error {
		return a.print(ctx, action, formOf(params, args), row, fields...)
	}}
}

// act runs an IAM action that answers nothing and confirms it: done is
// a format of the arguments ("deleted user %s").
func act(action string, params []string, done string) adminCommand {
	return adminCommand{args: params, run: func(ctx context.Context, a *admin, args []string) error {
		if _, err := a.call(ctx, action, formOf(params, args)); err != nil {
			return err
		}
		vals := make([]any, len(args))
		for i, v := range args {
			vals[i] = v
		}
		return a.printDone(action, params, args, fmt.Sprintf(done, vals...))
	}}
}

// formOf is an action's parameters given args, in order.
func formOf(params, args []string) url.Values {
	form := url.Values{}
	for i, p := range params {
		form.Set(p, args[i])
	}
	return form
}

var adminCommands = map[string]adminCommand{
	"user create":        call("CreateUser", []string{"UserName"}, "User", "UserName", "Arn"),
	"user list":          call("ListUsers", nil, "member", "UserName", "Arn"),
	"user delete":        act("DeleteUser", []string{"UserName"}, "deleted user %s"),
	"key create":         call("CreateAccessKey", []string{"UserName"}, "AccessKey", "AccessKeyId", "SecretAccessKey"),
	"key list":           call("ListAccessKeys", []string{"UserName"}, "member", "AccessKeyId", "Status", "CreateDate"),
	"key disable":        keyStatus(adminInactive),
	"key enable":         keyStatus(adminActive),
	"key delete":         act("DeleteAccessKey", []string{"UserName", "AccessKeyId"}, "deleted access key %[2]s of user %[1]s"),
	"group create":       call("CreateGroup", []string{"GroupName"}, "Group", "GroupName", "Arn"),
	"group delete":       act("DeleteGroup", []string{"GroupName"}, "deleted group %s"),
	"group list":         call("ListGroups", nil, "member", "GroupName", "Arn"),
	"group add":          act("AddUserToGroup", []string{"GroupName", "UserName"}, "added user %[2]s to group %[1]s"),
	"group remove":       act("RemoveUserFromGroup", []string{"GroupName", "UserName"}, "removed user %[2]s from group %[1]s"),
	"policy create":      withFile(call("CreatePolicy", []string{"PolicyName", "PolicyDocument"}, "Policy", "PolicyName", "Arn")),
	"policy list":        call("ListPolicies", nil, "member", "PolicyName", "Arn", "AttachmentCount"),
	"policy delete":      withARN(act("DeletePolicy", []string{"PolicyArn"}, "deleted policy %s"), 0),
	"policy attach":      withARN(act("AttachUserPolicy", []string{"UserName", "PolicyArn"}, "attached policy %[2]s to user %[1]s"), 1),
	"policy detach":      withARN(act("DetachUserPolicy", []string{"UserName", "PolicyArn"}, "detached policy %[2]s from user %[1]s"), 1),
	"user-policy put":    withFile(act("PutUserPolicy", []string{"UserName", "PolicyName", "PolicyDocument"}, "put policy %[2]s of user %[1]s")),
	"user-policy get":    call("GetUserPolicy", []string{"UserName", "PolicyName"}, "GetUserPolicyResult", "PolicyDocument"),
	"user-policy delete": act("DeleteUserPolicy", []string{"UserName", "PolicyName"}, "deleted policy %[2]s of user %[1]s"),
	"role create":        withFile(call("CreateRole", []string{"RoleName", "AssumeRolePolicyDocument"}, "Role", "RoleName", "Arn")),
	"role list":          call("ListRoles", nil, "member", "RoleName", "Arn"),
	"role delete":        act("DeleteRole", []string{"RoleName"}, "deleted role %s"),
	"sts assume-role":    call("AssumeRole", []string{"RoleArn", "RoleSessionName"}, "Credentials", stsCredentials...),
	"sts session-token":  call("GetSessionToken", nil, "Credentials", stsCredentials...),
	"sts identity":       call("GetCallerIdentity", nil, "GetCallerIdentityResult", "Arn", "UserId", "Account"),
	"replication resync": replicationResync(http.MethodPost),
	"replication status": replicationResync(http.MethodGet),
}

// stsCredentials are the fields of temporary credentials jog admin prints.
var stsCredentials = []string{"AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"}

// stsActions are the actions of STS's API (service sts, version
// 2011-06-15); every other is IAM's.
var stsActions = map[string]bool{"AssumeRole": true, "GetSessionToken": true, "GetCallerIdentity": true}

const (
	adminActive   = "Active"
	adminInactive = "Inactive"
)

func keyStatus(status string) adminCommand {
	c := act("UpdateAccessKey", []string{"UserName", "AccessKeyId", "Status"}, "access key %[2]s of user %[1]s is now %[3]s")
	run := c.run
	c.args = c.args[:2]
	c.run = func(ctx context.Context, a *admin, args []string) error { return run(ctx, a, append(args, status)) }
	return c
}

// withFile reads the last argument, a file name, into its contents.
func withFile(c adminCommand) adminCommand {
	run := c.run
	c.run = func(ctx context.Context, a *admin, args []string) error {
		b, err := os.ReadFile(args[len(args)-1])
		if err != nil {
			return err
		}
		args[len(args)-1] = string(b)
		return run(ctx, a, args)
	}
	return c
}

// withARN turns a policy name at args[i] into its ARN in the server's
// account (a path of "/").
func withARN(c adminCommand, i int) adminCommand {
	run := c.run
	c.run = func(ctx context.Context, a *admin, args []string) error {
		if !strings.HasPrefix(args[i], "arn:") {
			body, err := a.call(ctx, "GetUser", url.Values{})
			if err != nil {
				return err
			}
			rows, err := rowsOf(body, "User", "Arn")
			if err != nil || len(rows) != 1 {
				return fmt.Errorf("cannot learn the account ID: %v", err)
			}
			acct, _, _ := strings.Cut(strings.TrimPrefix(rows[0][0], "arn:aws:iam::"), ":")
			args[i] = "arn:aws:iam::" + acct + ":policy/" + args[i]
		}
		return run(ctx, a, args)
	}
	return c
}

// print calls action and prints fields of each row element: a listing's
// every page (row "member"), else the one result.
func (a *admin) print(ctx context.Context, action string, form url.Values, row string, fields ...string) error {
	var rows [][]string
	for {
		body, err := a.call(ctx, action, form)
		if err != nil {
			return err
		}
		page, err := rowsOf(body, row, fields...)
		if err != nil {
			return err
		}
		for _, r := range page {
			for i, f := range fields {
				if f == "PolicyDocument" {
					r[i], _ = url.QueryUnescape(r[i])
				}
			}
		}
		rows = append(rows, page...)
		next, _ := rowsOf(body, "ListResult", "Marker")
		if len(next) == 0 || next[0][0] == "" {
			break
		}
		form.Set("Marker", next[0][0])
	}
	if row == "member" {
		return a.printList(listed(action), rows, fields)
	}
	if len(rows) != 1 {
		return fmt.Errorf("%s: %d %s elements in the answer, want 1", action, len(rows), row)
	}
	return a.printOne(rows[0], fields)
}

// listed names what a List action lists: ListAccessKeys, "access keys".
func listed(action string) string {
	var b strings.Builder
	for i, r := range strings.TrimPrefix(action, "List") {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// call sends one signed IAM (or STS) request and returns the response
// body, or the API's error as an error.
func (a *admin) call(ctx context.Context, action string, form url.Values) ([]byte, error) {
	service, version := "iam", "2010-05-08"
	if stsActions[action] {
		service, version = "sts", "2011-06-15"
	}
	form.Set("Action", action)
	form.Set("Version", version)
	body := form.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(a.endpoint, "/")+"/", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	if a.token != "" {
		req.Header.Set(sigv4.SecurityTokenHeader, a.token)
	}
	sum := sha256.Sum256([]byte(body))
	sigv4.SignServiceRequest(req, service, a.access, a.secret, a.region, time.Now(), hex.EncodeToString(sum[:]))
	return a.send(req)
}

// send sends a signed request and returns the answer's body, or the
// error document's code and message as an error when the status is not
// 2xx.
func (a *admin) send(req *http.Request) ([]byte, error) {
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		rows, _ := rowsOf(out, "Error", "Code", "Message")
		if len(rows) == 1 {
			return nil, fmt.Errorf("%s: %s (HTTP %d)", rows[0][0], rows[0][1], resp.StatusCode)
		}
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	return out, nil
}

// rowsOf finds every element named row (or whose name ends with it, for
// "ListResult" any …Result) in an XML body and returns the text of its
// children named fields. An element named "member" holding only text is
// a row of one field.
func rowsOf(body []byte, row string, fields ...string) ([][]string, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var rows [][]string
	var cur []string
	depth, rowDepth := 0, -1
	field := -1
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := t.Name.Local
			switch {
			case rowDepth < 0 && (name == row || row == "ListResult" && strings.HasSuffix(name, "Result")):
				rowDepth, cur = depth, make([]string, len(fields))
			case rowDepth >= 0 && depth == rowDepth+1:
				field = slices.Index(fields, name)
			}
		case xml.CharData:
			if field >= 0 {
				cur[field] += string(t)
			}
		case xml.EndElement:
			if depth == rowDepth {
				rows, rowDepth = append(rows, cur), -1
			}
			field = -1
			depth--
		}
	}
}
