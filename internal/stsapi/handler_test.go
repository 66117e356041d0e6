package stsapi

import (
	"encoding/xml"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/iamtest"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/queryapi/queryapitest"
	"github.com/jogstore/jog/internal/sts"
	"github.com/jogstore/jog/internal/testutil/golden"
)

type creds map[string]string

func (c creds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

// newHandler returns a Handler over a real SQLite store whose root key is
// "root", with the roles "hop" (trusting the account; its policy allows
// assuming any role) and "end" (trusting the account).
func newHandler(t *testing.T) *Handler {
	t.Helper()
	users, k := iamtest.Open(t)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + users.Account() + `"},"Action":"sts:AssumeRole"}]}`
	for _, r := range []string{"hop", "end"} {
		if _, err := users.CreateRole(t.Context(), iam.RoleInput{Name: r, TrustPolicy: []byte(trust), MaxSessionDuration: 4 * time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	if err := users.PutInlinePolicy(t.Context(), meta.EntityRole, "hop", "assume",
		[]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"}]}`)); err != nil {
		t.Fatal(err)
	}
	svc := sts.New(users, k, sts.Options{})
	return New(svc, Config{Keys: sts.Keys{Root: creds{"root": "rootsecret"}, IAM: users, STS: svc}})
}

var (
	do       = queryapitest.Do
	wantCode = queryapitest.WantCode
)

type assumed struct {
	Result struct {
		Credentials struct {
			AccessKeyID     string `xml:"AccessKeyId"`
			SecretAccessKey string
			SessionToken    string
			Expiration      string
		}
		AssumedRoleUser struct {
			AssumedRoleID string `xml:"AssumedRoleId"`
			Arn           string
		}
	} `xml:"AssumeRoleResult"`
}

func assume(t *testing.T, h *Handler, key, secret, token, form string) assumed {
	t.Helper()
	w := do(h, "sts", key, secret, token, "Action=AssumeRole&Version=2011-06-15&"+form)
	if w.Code != 200 {
		t.Fatalf("AssumeRole %s: %d %s", form, w.Code, w.Body)
	}
	if !strings.Contains(w.Body.String(), `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">`) {
		t.Fatalf("AssumeRole: %s", w.Body)
	}
	var a assumed
	if err := xml.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestValidation(t *testing.T) {
	h := newHandler(t)
	arn := url.QueryEscape("arn:aws:iam::" + h.svc.Account() + ":role/end")
	wantCode(t, "signed for iam", do(h, "iam", "root", "rootsecret", "", "Action=GetCallerIdentity"), 400, "IncompleteSignature")
	wantCode(t, "unknown key", do(h, "sts", "nokey", "x", "", "Action=GetCallerIdentity"), 403, "InvalidClientTokenId")
	wantCode(t, "a token that does not open", do(h, "sts", "ASIAX", "x", "bm90IGEgdG9rZW4", "Action=GetCallerIdentity"), 403, "InvalidClientTokenId")
	wantCode(t, "unknown action", do(h, "sts", "root", "rootsecret", "", "Action=GetFederationToken"), 400, "InvalidAction")
	wantCode(t, "another version", do(h, "sts", "root", "rootsecret", "", "Action=GetCallerIdentity&Version=2010-05-08"), 400, "InvalidAction")
	for _, c := range []struct{ name, form, code string }{
		{"no RoleArn", "RoleSessionName=s1", "ValidationError"},
		{"no RoleSessionName", "RoleArn=" + arn, "ValidationError"},
		{"session name of 65", "RoleArn=" + arn + "&RoleSessionName=" + strings.Repeat("a", 65), "ValidationError"},
		{"session name with a slash", "RoleArn=" + arn + "&RoleSessionName=a%2Fb", "ValidationError"},
		{"duration not a number", "RoleArn=" + arn + "&RoleSessionName=s1&DurationSeconds=ten", "ValidationError"},
		{"duration of 899", "RoleArn=" + arn + "&RoleSessionName=s1&DurationSeconds=899", "ValidationError"},
		{"duration over the role's", "RoleArn=" + arn + "&RoleSessionName=s1&DurationSeconds=14401", "ValidationError"},
		{"RoleArn not an ARN", "RoleArn=role%2Fend-but-long-enough&RoleSessionName=s1", "ValidationError"},
		{"policy over 2048", "RoleArn=" + arn + "&RoleSessionName=s1&Policy=" + strings.Repeat("x", 2049), "ValidationError"},
		{"malformed policy", "RoleArn=" + arn + "&RoleSessionName=s1&Policy=%7B%7D", "MalformedPolicyDocument"},
		{"missing managed policy", "RoleArn=" + arn + "&RoleSessionName=s1&PolicyArns.member.1.arn=" + url.QueryEscape("arn:aws:iam::"+h.svc.Account()+":policy/none"), "InvalidParameterValue"},
	} {
		wantCode(t, c.name, do(h, "sts", "root", "rootsecret", "", "Action=AssumeRole&"+c.form), 400, c.code)
	}
	wantCode(t, "a role of another account", do(h, "sts", "root", "rootsecret", "",
		"Action=AssumeRole&RoleSessionName=s1&RoleArn="+url.QueryEscape("arn:aws:iam::999999999999:role/end")), 403, "AccessDenied")
	wantCode(t, "MFA", do(h, "sts", "root", "rootsecret", "", "Action=GetSessionToken&SerialNumber=x&TokenCode=123456"), 400, "ValidationError")
	wantCode(t, "GetSessionToken of 899 s", do(h, "sts", "root", "rootsecret", "", "Action=GetSessionToken&DurationSeconds=899"), 400, "ValidationError")
	a := assume(t, h, "root", "rootsecret", "", "RoleArn="+arn+"&RoleSessionName=s1&DurationSeconds=14400")
	if exp, err := time.Parse(time.RFC3339, a.Result.Credentials.Expiration); err != nil || time.Until(exp) < 3*time.Hour+59*time.Minute {
		t.Fatalf("Expiration %q, %v", a.Result.Credentials.Expiration, err)
	}
}

// TestRoleChaining: a role session may assume another role for an hour at
// most.
func TestRoleChaining(t *testing.T) {
	h := newHandler(t)
	arn := func(r string) string { return url.QueryEscape("arn:aws:iam::" + h.svc.Account() + ":role/" + r) }
	c := assume(t, h, "root", "rootsecret", "", "RoleArn="+arn("hop")+"&RoleSessionName=first").Result.Credentials
	wantCode(t, "chained for two hours", do(h, "sts", c.AccessKeyID, c.SecretAccessKey, c.SessionToken,
		"Action=AssumeRole&RoleArn="+arn("end")+"&RoleSessionName=second&DurationSeconds=7200"), 400, "ValidationError")
	b := assume(t, h, c.AccessKeyID, c.SecretAccessKey, c.SessionToken, "RoleArn="+arn("end")+"&RoleSessionName=second")
	if !strings.HasSuffix(b.Result.AssumedRoleUser.Arn, ":assumed-role/end/second") {
		t.Fatalf("chained: %+v", b.Result.AssumedRoleUser)
	}
	// "end" may not assume anything: its policies do not allow it.
	d := b.Result.Credentials
	wantCode(t, "end assumes hop", do(h, "sts", d.AccessKeyID, d.SecretAccessKey, d.SessionToken,
		"Action=AssumeRole&RoleArn="+arn("hop")+"&RoleSessionName=third"), 403, "AccessDenied")
	wantCode(t, "a session's GetSessionToken", do(h, "sts", d.AccessKeyID, d.SecretAccessKey, d.SessionToken, "Action=GetSessionToken"), 403, "AccessDenied")
	wantCode(t, "a session's token with another signature", do(h, "sts", d.AccessKeyID, "wrong", d.SessionToken, "Action=GetCallerIdentity"), 403, "SignatureDoesNotMatch")
}

// The golden tests pin the bytes of STS responses built from fixed
// inputs. After a deliberate change: go test ./internal/stsapi -run Golden -update
var update = flag.Bool("update", false, "rewrite testdata/golden/*.xml")

func TestGoldenXML(t *testing.T) {
	c := credentials(sts.Credentials{AccessKeyID: "ASIAEXAMPLE000000001", Secret: keyring.NewSecret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
		SessionToken: "c2Vzc2lvbi10b2tlbg", Expiration: time.Date(2026, 11, 24, 10, 30, 15, 0, time.UTC)})
	assumed := assumeRoleResult{Credentials: c, PackedPolicySize: 6}
	assumed.AssumedRoleUser.AssumedRoleID = "AROAEXAMPLE0000000001:app"
	assumed.AssumedRoleUser.Arn = "arn:aws:sts::123456789012:assumed-role/reader/app"
	for _, g := range []struct {
		name, action string
		result       any
	}{
		{"assume-role", "AssumeRole", assumed},
		{"get-session-token", "GetSessionToken", sessionTokenResult{c}},
		{"get-caller-identity", "GetCallerIdentity", callerIdentityResult{UserID: "AROAEXAMPLE0000000001:app", Account: "123456789012",
			Arn: "arn:aws:sts::123456789012:assumed-role/reader/app"}},
	} {
		t.Run(g.name, func(t *testing.T) {
			queryapitest.CheckResponse(t, "internal/stsapi", xmlns, g.name, g.action, g.result, *update)
		})
	}
	h := &Handler{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	w := httptest.NewRecorder()
	h.writeError(w, &request{ctx: t.Context(), id: queryapitest.GoldenRequestID, action: "AssumeRole"},
		meta.IAMErrorf(sts.ErrPackedPolicyTooLarge, "Packed policy consumes 164%% of allotted space, please use smaller policy."))
	if w.Code != http.StatusBadRequest {
		t.Fatalf("PackedPolicyTooLarge: status %d", w.Code)
	}
	golden.Check(t, "internal/stsapi", "error-packed-policy-too-large", w.Body.Bytes(), *update)
}
