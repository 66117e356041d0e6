package policy

import (
	"slices"
	"testing"
)

const acct = "111122223333"

func compileT(t testing.TB, kind Kind, doc string) *Compiled {
	t.Helper()
	c, err := ParseCompiled([]byte(doc), kind)
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return c
}

func user(name, action, resource string, kv ...string) *Request {
	r := &Request{Type: User, Account: acct, ARN: "arn:aws:iam::" + acct + ":user/" + name,
		Action: action, Resource: resource, Context: Context{}}
	r.Context.Set("aws:username", name)
	r.Context.Set("aws:userid", "AIDA"+name)
	for i := 0; i+1 < len(kv); i += 2 {
		r.Context.Set(kv[i], kv[i+1])
	}
	return r
}

func anonymous(action, resource string, kv ...string) *Request {
	r := &Request{Type: Anonymous, Action: action, Resource: resource, Context: Context{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Context.Set(kv[i], kv[i+1])
	}
	return r
}

type evalCase struct {
	name string
	req  *Request
	want Decision
}

func runEval(t *testing.T, set *Set, cases []evalCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Evaluate(c.req, set); got != c.want {
				t.Fatalf("%s %s by %s: got %v, want %v", c.req.Action, c.req.Resource, c.req.ARN, got, c.want)
			}
		})
	}
}

// "IAM JSON policy elements: Action" and "Resource": wildcards; actions
// match without case, resources with case.
func TestActionAndResourceWildcards(t *testing.T) {
	p := compileT(t, Identity, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:Get*","s3:List?ucket"],"Resource":["arn:aws:s3:::photos/*","arn:aws:s3:::photos"]},
		{"Effect":"Allow","NotAction":"s3:Delete*","Resource":"arn:aws:s3:::scratch/*"},
		{"Effect":"Allow","Action":"s3:PutObject","NotResource":"arn:aws:s3:::photos/private/*"}]}`)
	set := &Set{Identity: []*Compiled{p}}
	runEval(t, set, []evalCase{
		{"Get* matches GetObject", user("alice", "s3:GetObject", "arn:aws:s3:::photos/a.jpg"), Allowed},
		{"action case is ignored", user("alice", "S3:GETOBJECTTAGGING", "arn:aws:s3:::photos/a.jpg"), Allowed},
		{"? is one character", user("alice", "s3:ListBucket", "arn:aws:s3:::photos"), Allowed},
		{"resource case matters", user("alice", "s3:GetObject", "arn:aws:s3:::Photos/a.jpg"), ImplicitDeny},
		{"* spans slashes", user("alice", "s3:GetObject", "arn:aws:s3:::photos/2024/01/a.jpg"), Allowed},
		{"other bucket", user("alice", "s3:GetObject", "arn:aws:s3:::photosx/a.jpg"), ImplicitDeny},
		{"NotAction allows the rest", user("alice", "s3:PutObject", "arn:aws:s3:::scratch/x"), Allowed},
		{"NotAction excludes its actions", user("alice", "s3:DeleteObject", "arn:aws:s3:::scratch/x"), ImplicitDeny},
		{"NotResource allows elsewhere", user("alice", "s3:PutObject", "arn:aws:s3:::photos/public/x"), Allowed},
		{"NotResource excludes its resources", user("alice", "s3:PutObject", "arn:aws:s3:::photos/private/x"), ImplicitDeny},
	})
}

// "IAM policy elements: Variables and tags": ${aws:username} in Resource
// and Condition, default values, the ${*} ${?} ${$} escapes, variables
// without a value, and 2008-10-17 policies where ${…} is plain text.
func TestPolicyVariables(t *testing.T) {
	home := compileT(t, Identity, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::amzn-s3-demo-bucket",
		 "Condition":{"StringLike":{"s3:prefix":["","home/","home/${aws:username}/*"]}}},
		{"Effect":"Allow","Action":"s3:*","Resource":["arn:aws:s3:::amzn-s3-demo-bucket/home/${aws:username}","arn:aws:s3:::amzn-s3-demo-bucket/home/${aws:username}/*"]}]}`)
	set := &Set{Identity: []*Compiled{home}}
	runEval(t, set, []evalCase{
		{"own folder", user("David", "s3:PutObject", "arn:aws:s3:::amzn-s3-demo-bucket/home/David/notes.txt"), Allowed},
		{"another's folder", user("David", "s3:GetObject", "arn:aws:s3:::amzn-s3-demo-bucket/home/Carlos/notes.txt"), ImplicitDeny},
		{"list own prefix", user("David", "s3:ListBucket", "arn:aws:s3:::amzn-s3-demo-bucket", "s3:prefix", "home/David/2024/"), Allowed},
		{"list home/", user("David", "s3:ListBucket", "arn:aws:s3:::amzn-s3-demo-bucket", "s3:prefix", "home/"), Allowed},
		{"list another's prefix", user("David", "s3:ListBucket", "arn:aws:s3:::amzn-s3-demo-bucket", "s3:prefix", "home/Carlos/"), ImplicitDeny},
		{"variable without a value matches nothing", &Request{Type: User, Account: acct, ARN: "arn:aws:iam::" + acct + ":user/x",
			Action: "s3:GetObject", Resource: "arn:aws:s3:::amzn-s3-demo-bucket/home//x"}, ImplicitDeny},
	})

	def := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject",
		"Resource":"arn:aws:s3:::b/${aws:PrincipalTag/team, 'company-wide'}/*"}}`)
	set = &Set{Identity: []*Compiled{def}}
	runEval(t, set, []evalCase{
		{"default used when the key is absent", user("a", "s3:GetObject", "arn:aws:s3:::b/company-wide/x"), Allowed},
		{"the key's value when present", user("a", "s3:GetObject", "arn:aws:s3:::b/red/x", "aws:PrincipalTag/team", "red"), Allowed},
		{"not the default when present", user("a", "s3:GetObject", "arn:aws:s3:::b/company-wide/x", "aws:PrincipalTag/team", "red"), ImplicitDeny},
	})

	esc := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject",
		"Resource":"arn:aws:s3:::b/${*}${?}${$}/*"}}`)
	set = &Set{Identity: []*Compiled{esc}}
	runEval(t, set, []evalCase{
		{"escapes are literal", user("a", "s3:GetObject", "arn:aws:s3:::b/*?$/x"), Allowed},
		{"escaped * is no wildcard", user("a", "s3:GetObject", "arn:aws:s3:::b/ab?$/x"), ImplicitDeny},
		{"escaped ? is no wildcard", user("a", "s3:GetObject", "arn:aws:s3:::b/*a$/x"), ImplicitDeny},
	})

	old := compileT(t, Identity, `{"Version":"2008-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject",
		"Resource":"arn:aws:s3:::b/${aws:username}/*"}}`)
	set = &Set{Identity: []*Compiled{old}}
	runEval(t, set, []evalCase{
		{"2008: no substitution", user("alice", "s3:GetObject", "arn:aws:s3:::b/alice/x"), ImplicitDeny},
		{"2008: the text itself", user("alice", "s3:GetObject", "arn:aws:s3:::b/${aws:username}/x"), Allowed},
	})

	cond := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*",
		"Condition":{"StringEquals":{"s3:prefix":"${aws:userid}/"}}}}`)
	set = &Set{Identity: []*Compiled{cond}}
	runEval(t, set, []evalCase{
		{"variable in StringEquals", user("bob", "s3:ListBucket", "arn:aws:s3:::b", "s3:prefix", "AIDAbob/"), Allowed},
		{"variable in StringEquals, other value", user("bob", "s3:ListBucket", "arn:aws:s3:::b", "s3:prefix", "AIDAeve/"), ImplicitDeny},
	})
}

// "Policy evaluation logic" (how AWS enforcement code evaluates requests,
// and policy evaluation for requests within a single account).
func TestEvaluationLogic(t *testing.T) {
	// The Carlos example: his identity policy denies every bucket whose
	// name holds "log"; the logs bucket's policy allows him PutObject. The
	// explicit deny wins.
	carlos := compileT(t, Identity, `{"Version":"2012-10-17","Statement":[
		{"Sid":"AllowS3ListRead","Effect":"Allow","Action":["s3:GetBucketLocation","s3:GetObject","s3:ListAllMyBuckets"],"Resource":"*"},
		{"Sid":"AllowS3Self","Effect":"Allow","Action":"s3:*","Resource":["arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar/*","arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar"]},
		{"Sid":"DenyS3Logs","Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::*log*"}]}`)
	logs := compileT(t, Resource, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam::`+acct+`:user/carlossalazar"},"Action":"s3:PutObject",
		"Resource":"arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar-logs/*"}]}`)
	runEval(t, &Set{Identity: []*Compiled{carlos}, Resource: logs}, []evalCase{
		{"explicit deny beats the bucket policy's allow",
			user("carlossalazar", "s3:PutObject", "arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar-logs/a"), ExplicitDeny},
	})
	runEval(t, &Set{Identity: []*Compiled{carlos}}, []evalCase{
		{"own bucket", user("carlossalazar", "s3:PutObject", "arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar/a"), Allowed},
		{"read anywhere else", user("carlossalazar", "s3:GetObject", "arn:aws:s3:::other/a"), Allowed},
		{"no statement: implicit deny", user("carlossalazar", "s3:PutObject", "arn:aws:s3:::other/a"), ImplicitDeny},
	})

	// Either the identity or the resource policy suffices in one account.
	bucketAllowsBob := compileT(t, Resource, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"AWS":["arn:aws:iam::`+acct+`:user/bob"]},"Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}]}`)
	runEval(t, &Set{Resource: bucketAllowsBob}, []evalCase{
		{"resource policy alone allows the user it names", user("bob", "s3:GetObject", "arn:aws:s3:::shared/x"), Allowed},
		{"but not another user", user("eve", "s3:GetObject", "arn:aws:s3:::shared/x"), ImplicitDeny},
		{"nor anonymous", anonymous("s3:GetObject", "arn:aws:s3:::shared/x"), ImplicitDeny},
	})

	// A resource policy naming the account delegates to identity policies.
	bucketAllowsAccount := compileT(t, Resource, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam::`+acct+`:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}]}`)
	runEval(t, &Set{Resource: bucketAllowsAccount}, []evalCase{
		{"account principal grants a user nothing alone", user("bob", "s3:GetObject", "arn:aws:s3:::shared/x"), ImplicitDeny},
		{"root is the account", &Request{Type: Root, Account: acct, ARN: "arn:aws:iam::" + acct + ":root",
			Action: "s3:GetObject", Resource: "arn:aws:s3:::shared/x"}, Allowed},
	})

	// A bucket policy Deny naming the account applies to all its principals,
	// the root user too.
	denyAccount := compileT(t, Resource, `{"Version":"2012-10-17","Statement":[{"Effect":"Deny",
		"Principal":{"AWS":"`+acct+`"},"Action":"s3:DeleteObject","Resource":"arn:aws:s3:::shared/*"}]}`)
	readAll := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`)
	runEval(t, &Set{Identity: []*Compiled{readAll}, Resource: denyAccount}, []evalCase{
		{"deny by account hits a user", user("bob", "s3:DeleteObject", "arn:aws:s3:::shared/x"), ExplicitDeny},
		{"deny by account hits root", &Request{Type: Root, Account: acct, ARN: "arn:aws:iam::" + acct + ":root",
			Action: "s3:DeleteObject", Resource: "arn:aws:s3:::shared/x"}, ExplicitDeny},
		{"other actions pass", user("bob", "s3:GetObject", "arn:aws:s3:::shared/x"), Allowed},
	})
}

// "Permissions boundaries for IAM entities" and "Session policies": the
// effective permissions are the intersection with the identity policies;
// a resource policy naming the user or session itself is not limited.
func TestBoundariesAndSessions(t *testing.T) {
	identity := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["s3:*","iam:CreateUser"],"Resource":"*"}}`)
	boundary := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["s3:*","cloudwatch:*","ec2:*"],"Resource":"*"}}`)
	session := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/*"}}`)
	runEval(t, &Set{Identity: []*Compiled{identity}, Boundary: boundary}, []evalCase{
		{"allowed by both", user("ann", "s3:PutObject", "arn:aws:s3:::data/x"), Allowed},
		{"outside the boundary", user("ann", "iam:CreateUser", "arn:aws:iam::"+acct+":user/new"), ImplicitDeny},
		{"in the boundary, not in the identity policy", user("ann", "ec2:RunInstances", "*"), ImplicitDeny},
	})

	role := func(action, resource string) *Request {
		return &Request{Type: AssumedRole, Account: acct,
			ARN: "arn:aws:sts::" + acct + ":assumed-role/reader/app", ParentARN: "arn:aws:iam::" + acct + ":role/reader",
			Action: action, Resource: resource}
	}
	runEval(t, &Set{Identity: []*Compiled{identity}, Session: session}, []evalCase{
		{"session policy allows", role("s3:GetObject", "arn:aws:s3:::data/x"), Allowed},
		{"session policy narrows", role("s3:PutObject", "arn:aws:s3:::data/x"), ImplicitDeny},
	})

	namesRole := compileT(t, Resource, `{"Version":"2012-10-17","Statement":{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam::`+acct+`:role/reader"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::data/*"}}`)
	namesSession := compileT(t, Resource, `{"Version":"2012-10-17","Statement":{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:sts::`+acct+`:assumed-role/reader/app"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::data/*"}}`)
	runEval(t, &Set{Session: session, Resource: namesRole}, []evalCase{
		{"resource policy naming the role is limited by the session policy", role("s3:PutObject", "arn:aws:s3:::data/x"), ImplicitDeny},
	})
	runEval(t, &Set{Resource: namesRole}, []evalCase{
		{"resource policy naming the role, no session policy", role("s3:PutObject", "arn:aws:s3:::data/x"), Allowed},
	})
	runEval(t, &Set{Session: session, Resource: namesSession}, []evalCase{
		{"resource policy naming the session is not limited", role("s3:PutObject", "arn:aws:s3:::data/x"), Allowed},
	})
	bucketAllowsAnn := compileT(t, Resource, `{"Version":"2012-10-17","Statement":{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam::`+acct+`:user/ann"},"Action":"iam:CreateUser","Resource":"*"}}`)
	runEval(t, &Set{Identity: []*Compiled{identity}, Boundary: boundary, Resource: bucketAllowsAnn}, []evalCase{
		{"resource policy naming the user is not limited by the boundary", user("ann", "iam:CreateUser", "arn:aws:iam::"+acct+":user/new"), Allowed},
	})
	denyInBoundary := compileT(t, Identity, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},
		{"Effect":"Deny","Action":"s3:DeleteBucket","Resource":"*"}]}`)
	runEval(t, &Set{Identity: []*Compiled{identity}, Boundary: denyInBoundary}, []evalCase{
		{"a Deny in the boundary is explicit", user("ann", "s3:DeleteBucket", "arn:aws:s3:::data"), ExplicitDeny},
	})
}

// "AWS JSON policy elements: NotPrincipal": Deny to everyone but the
// principals listed.
func TestNotPrincipal(t *testing.T) {
	p := compileT(t, Resource, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Deny","NotPrincipal":{"AWS":["arn:aws:iam::`+acct+`:user/admin"]},"Action":"s3:*","Resource":["arn:aws:s3:::vault","arn:aws:s3:::vault/*"]}]}`)
	all := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`)
	runEval(t, &Set{Identity: []*Compiled{all}, Resource: p}, []evalCase{
		{"the listed principal passes", user("admin", "s3:GetObject", "arn:aws:s3:::vault/x"), Allowed},
		{"everyone else is denied", user("bob", "s3:GetObject", "arn:aws:s3:::vault/x"), ExplicitDeny},
		{"anonymous is denied", anonymous("s3:GetObject", "arn:aws:s3:::vault/x"), ExplicitDeny},
		{"other buckets are untouched", user("bob", "s3:GetObject", "arn:aws:s3:::other/x"), Allowed},
	})
}

// "AWS JSON policy elements: Principal", AWS service principals: a
// service is allowed only by a resource policy statement naming it (or
// every principal), under its conditions (aws:SourceArn); a statement
// naming the account, a user or another service does not; a Deny naming
// it wins.
func TestServicePrincipal(t *testing.T) {
	svc := func(name, action, resource string, kv ...string) *Request {
		r := &Request{Type: Service, ARN: name, Action: action, Resource: resource, Context: Context{}}
		for i := 0; i+1 < len(kv); i += 2 {
			r.Context.Set(kv[i], kv[i+1])
		}
		return r
	}
	const logging = "logging.s3.amazonaws.com"
	logs := compileT(t, Resource, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"Service":"`+logging+`"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/src/*",
		 "Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::src"}}},
		{"Effect":"Allow","Principal":{"AWS":"`+acct+`"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/any/*"},
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/bob"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/bob/*"},
		{"Effect":"Allow","Principal":{"Service":"delivery.logs.amazonaws.com"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/elb/*"},
		{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/public/*"},
		{"Effect":"Deny","Principal":{"Service":"`+logging+`"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/src/denied*"}]}`)
	runEval(t, &Set{Resource: logs}, []evalCase{
		{"named, condition met", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/src/2024", "aws:SourceArn", "arn:aws:s3:::src"), Allowed},
		{"named, another source", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/src/2024", "aws:SourceArn", "arn:aws:s3:::other"), ImplicitDeny},
		{"named, no source", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/src/2024"), ImplicitDeny},
		{"another action", svc(logging, "s3:DeleteObject", "arn:aws:s3:::logs/src/2024", "aws:SourceArn", "arn:aws:s3:::src"), ImplicitDeny},
		{"the account does not name a service", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/any/x"), ImplicitDeny},
		{"a user's ARN does not name a service", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/bob/x"), ImplicitDeny},
		{"another service", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/elb/x"), ImplicitDeny},
		{"every principal", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/public/x"), Allowed},
		{"a Deny naming it", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/src/denied", "aws:SourceArn", "arn:aws:s3:::src"), ExplicitDeny},
		{"a user is not the service", user("bob", "s3:PutObject", "arn:aws:s3:::logs/src/2024", "aws:SourceArn", "arn:aws:s3:::src"), ImplicitDeny},
	})
	// An identity policy grants a service nothing.
	all := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`)
	runEval(t, &Set{Identity: []*Compiled{all}}, []evalCase{
		{"identity policy alone", svc(logging, "s3:PutObject", "arn:aws:s3:::logs/x"), ImplicitDeny},
	})
}

// A role's trust policy decides sts:AssumeRole like a resource policy.
func TestTrustPolicy(t *testing.T) {
	trust := compileT(t, Trust, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/alice"},"Action":"sts:AssumeRole"},
		{"Effect":"Allow","Principal":{"AWS":"`+acct+`"},"Action":"sts:AssumeRole","Condition":{"Bool":{"aws:MultiFactorAuthPresent":"true"}}}]}`)
	mayAssume := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::`+acct+`:role/*"}}`)
	roleARN := "arn:aws:iam::" + acct + ":role/ops"
	runEval(t, &Set{Resource: trust}, []evalCase{
		{"named user", user("alice", "sts:AssumeRole", roleARN), Allowed},
		{"account without an identity allow", user("bob", "sts:AssumeRole", roleARN, "aws:MultiFactorAuthPresent", "true"), ImplicitDeny},
	})
	runEval(t, &Set{Identity: []*Compiled{mayAssume}, Resource: trust}, []evalCase{
		{"account delegation with an identity allow", user("bob", "sts:AssumeRole", roleARN, "aws:MultiFactorAuthPresent", "true"), Allowed},
		{"identity allow without the trust policy's", user("bob", "sts:AssumeRole", roleARN), ImplicitDeny},
	})
}

// TestKeys: Keys names every key an evaluation may read, so that a caller
// filling the context lazily fills these: condition keys and the variables
// of resources, string values and ARN values, each once, in lower case.
func TestKeys(t *testing.T) {
	c, err := ParseCompiled([]byte(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username}/*",
		 "Condition":{"StringLike":{"s3:prefix":"${aws:userid}/*"},"ArnLike":{"aws:SourceArn":"arn:aws:s3:::${s3:x-amz-acl}"},
		 "IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}},
		{"Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::${aws:username}","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`), Identity)
	if err != nil {
		t.Fatal(err)
	}
	got := append([]string(nil), c.Keys()...)
	slices.Sort(got)
	want := []string{"aws:securetransport", "aws:sourcearn", "aws:sourceip", "aws:userid", "aws:username", "s3:prefix", "s3:x-amz-acl"}
	if !slices.Equal(got, want) {
		t.Errorf("Keys() = %v, want %v", got, want)
	}
}

// TestKeysFor: the keys of the statements about an action alone, with
// wildcards, NotAction and a Join's statements; past the action index's
// bound too.
func TestKeysFor(t *testing.T) {
	c := compileT(t, Identity, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username}/*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}},
		{"Effect":"Allow","Action":"s3:Put*","Resource":"*","Condition":{"StringEquals":{"s3:x-amz-acl":"private"}}},
		{"Effect":"Deny","NotAction":"s3:GetObject","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}},
		{"Effect":"Deny","Action":"s3:*","Resource":"*","Condition":{"StringLike":{"aws:UserAgent":"*bot*"}}}]}`)
	other := compileT(t, Identity, `{"Version":"2012-10-17","Statement":
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"aws:Referer":"x"}}}}`)
	for range 2 { // the second time from the index
		for _, tc := range []struct {
			c      *Compiled
			action string
			want   []string
		}{
			{c, "s3:GetObject", []string{"aws:username", "aws:sourceip", "aws:useragent"}},
			{c, "s3:PutObject", []string{"s3:x-amz-acl", "aws:securetransport", "aws:useragent"}},
			{c, "s3:ListBucket", []string{"aws:securetransport", "aws:useragent"}},
			{other, "s3:PutObject", nil},
			{Join(c, other), "s3:GetObject", []string{"aws:username", "aws:sourceip", "aws:useragent", "aws:referer"}},
		} {
			if got := tc.c.KeysFor(tc.action); !slices.Equal(got, tc.want) {
				t.Errorf("KeysFor(%s) = %v, want %v", tc.action, got, tc.want)
			}
		}
	}
	c.actions.Store(maxActions)
	if got, want := c.KeysFor("s3:DeleteObject"), []string{"aws:securetransport", "aws:useragent"}; !slices.Equal(got, want) {
		t.Errorf("past the bound: %v, want %v", got, want)
	}
}

// Several session policies (AssumeRole's Policy and PolicyArns) narrow a
// session together: what any allows, unless one denies.
func TestJoinSessionPolicies(t *testing.T) {
	identity := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`)
	get := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/*"}}`)
	put := compileT(t, Identity, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::data/*"},
		{"Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::data/secret/*"}]}`)
	role := func(action, resource string) *Request {
		return &Request{Type: AssumedRole, Account: acct,
			ARN: "arn:aws:sts::" + acct + ":assumed-role/r/s", ParentARN: "arn:aws:iam::" + acct + ":role/r",
			Action: action, Resource: resource}
	}
	if Join(get) != get {
		t.Error("Join of one policy is not that policy")
	}
	runEval(t, &Set{Identity: []*Compiled{identity}, Session: Join(get, put)}, []evalCase{
		{"the first allows", role("s3:GetObject", "arn:aws:s3:::data/x"), Allowed},
		{"the second allows", role("s3:PutObject", "arn:aws:s3:::data/x"), Allowed},
		{"neither allows", role("s3:DeleteObject", "arn:aws:s3:::data/x"), ImplicitDeny},
		{"one denies what the other allows", role("s3:GetObject", "arn:aws:s3:::data/secret/x"), ExplicitDeny},
	})
}

// TestActionIndex: the statements an action lets through are remembered
// per action (Compiled.candidates): decisions stay right when actions
// alternate, with wildcards, NotAction and case, and past the index's
// bound (where statements are matched each time).
func TestActionIndex(t *testing.T) {
	c := compileT(t, Identity, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:Get*","Resource":"*"},
		{"Effect":"Allow","Action":["s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::b/*"},
		{"Effect":"Deny","NotAction":["s3:Get*","s3:List*"],"Resource":"arn:aws:s3:::ro/*"}]}`)
	set := &Set{Identity: []*Compiled{c}}
	user := func(action, resource string) *Request {
		return &Request{Type: User, Account: acct, ARN: "arn:aws:iam::" + acct + ":user/u", Action: action, Resource: resource}
	}
	cases := []evalCase{
		{"get anywhere", user("s3:GetObject", "arn:aws:s3:::ro/k"), Allowed},
		{"put in b", user("s3:PutObject", "arn:aws:s3:::b/k"), Allowed},
		{"put in ro: NotAction denies", user("s3:PutObject", "arn:aws:s3:::ro/k"), ExplicitDeny},
		{"list in ro: not denied, not allowed", user("s3:ListBucket", "arn:aws:s3:::ro/k"), ImplicitDeny},
		{"action case ignored", user("S3:getobject", "arn:aws:s3:::x/k"), Allowed},
		{"delete elsewhere", user("s3:DeleteObject", "arn:aws:s3:::x/k"), ImplicitDeny},
	}
	for range 3 {
		runEval(t, set, cases)
	}
	c.actions.Store(maxActions) // the index is full: new actions are matched each time
	runEval(t, set, []evalCase{{"an action first seen when full", user("s3:DeleteObject", "arn:aws:s3:::ro/k"), ExplicitDeny}})
	if _, ok := c.byAction.Load("s3:DeleteObject"); !ok {
		t.Error("an action seen before the bound was forgotten")
	}
	if _, ok := c.byAction.Load("s3:GetObjectTagging"); ok {
		t.Error("not asked yet, but indexed")
	}
	runEval(t, set, []evalCase{{"past the bound", user("s3:GetObjectTagging", "arn:aws:s3:::ro/k"), Allowed}})
	if _, ok := c.byAction.Load("s3:GetObjectTagging"); ok {
		t.Error("an action first seen past the bound was stored")
	}
}
