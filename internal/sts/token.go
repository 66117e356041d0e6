package sts

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/sigv4"
)

// Kind is whose temporary credentials a session holds.
type Kind string

const (
	KindRole Kind = "role" // AssumeRole: a role session
	KindUser Kind = "user" // GetSessionToken of an IAM user
	KindRoot Kind = "root" // GetSessionToken of the root credentials
)

// tokenPurpose is the keyring purpose of session tokens: a token opens
// only as a token, never as a sealed access-key secret.
const tokenPurpose = "sts-session"

// Session is what a session token holds: the temporary credentials, when
// they were issued and expire, whose they are and the session policy.
// Nothing of it is stored: the token is the session, sealed (AES-256-GCM)
// under the server key, so every gateway with that key accepts it.
type Session struct {
	AccessKeyID string
	Secret      keyring.Secret
	Issued      time.Time
	Expires     time.Time
	Kind        Kind
	// Name and ID are the role's (KindRole) or the user's (KindUser):
	// a role or user deleted and created again under its name has
	// another ID, and its old sessions fail.
	Name string
	ID   string
	// SessionName is a role session's RoleSessionName.
	SessionName string
	// Policy (an inline document) and PolicyARNs (managed policies) are
	// the session policies; none when empty.
	Policy     string
	PolicyARNs []string
	// Console marks a session the web console issued on a sign-in with
	// the long-term secret (internal/console): the IAM API takes it as
	// its principal, as AWS takes a console sign-in.
	Console bool
}

// wire is a Session as sealed: short names, the secret in plain text
// (keyring.Secret never marshals it).
type wire struct {
	AccessKeyID string   `json:"a"`
	Secret      string   `json:"s"`
	Issued      int64    `json:"i"`
	Expires     int64    `json:"e"`
	Kind        Kind     `json:"k"`
	Name        string   `json:"n,omitempty"`
	ID          string   `json:"d,omitempty"`
	SessionName string   `json:"r,omitempty"`
	Policy      string   `json:"p,omitempty"`
	PolicyARNs  []string `json:"m,omitempty"`
	Console     bool     `json:"c,omitempty"`
}

// Seal returns the session token of s under keys: URL-safe base64 of the
// sealed session.
func Seal(keys *keyring.Keyring, s *Session) string {
	b, err := json.Marshal(wire{
		AccessKeyID: s.AccessKeyID, Secret: s.Secret.Reveal(), Issued: s.Issued.Unix(), Expires: s.Expires.Unix(),
		Kind: s.Kind, Name: s.Name, ID: s.ID, SessionName: s.SessionName, Policy: s.Policy, PolicyARNs: s.PolicyARNs,
		Console: s.Console,
	})
	if err != nil {
		panic(err) // strings and numbers always marshal
	}
	return base64.RawURLEncoding.EncodeToString(keys.SealToken(tokenPurpose, b))
}

// Open returns the session a token holds for accessKey at now: an error
// wrapping sigv4.ErrInvalidToken when the token does not open under keys
// or is another key's, sigv4.ErrExpiredToken when it has expired.
func Open(keys *keyring.Keyring, accessKey, token string, now time.Time) (*Session, error) {
	sealed, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64", sigv4.ErrInvalidToken)
	}
	plain, err := keys.OpenToken(tokenPurpose, sealed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", sigv4.ErrInvalidToken, err)
	}
	var w wire
	if err := json.Unmarshal(plain, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", sigv4.ErrInvalidToken, err)
	}
	if w.AccessKeyID != accessKey {
		return nil, fmt.Errorf("%w: the token is not access key %s's", sigv4.ErrInvalidToken, accessKey)
	}
	s := &Session{
		AccessKeyID: w.AccessKeyID, Secret: keyring.NewSecret(w.Secret),
		Issued: time.Unix(w.Issued, 0).UTC(), Expires: time.Unix(w.Expires, 0).UTC(),
		Kind: w.Kind, Name: w.Name, ID: w.ID, SessionName: w.SessionName, Policy: w.Policy, PolicyARNs: w.PolicyARNs,
		Console: w.Console,
	}
	if !now.Before(s.Expires) {
		return nil, fmt.Errorf("%w: it expired at %s", sigv4.ErrExpiredToken, s.Expires.Format(time.RFC3339))
	}
	return s, nil
}
