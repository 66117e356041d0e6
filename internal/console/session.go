package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/bodytimeout"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/sts"
)

// CookieName is the console's session cookie.
const CookieName = "jog_console"

// CSRFHeader must carry the session's CSRF value on every API request
// but sign-in and the session's GET.
const CSRFHeader = "X-Jog-Csrf"

// cookiePurpose is the keyring purpose of the cookie: it opens only as a
// console cookie, never as an STS token or a sealed secret.
const cookiePurpose = "console-session"

// temporaryKeyPrefix begins temporary access key IDs, as STS's do.
const temporaryKeyPrefix = "ASIA"

// Session is what the cookie holds, sealed under the server key: the
// temporary credentials the console signs with on the principal's
// behalf, their session token, and who the principal is. Nothing is
// stored on the server, so any gateway with the server key serves it.
type Session struct {
	AccessKeyID string
	Secret      keyring.Secret
	Token       string // the STS session token (sts.Seal)
	Issued      time.Time
	Expires     time.Time
	Principal   string // "root" or the user's name
	ARN         string
}

// cookieWire is a Session as sealed, the secret in plain text.
type cookieWire struct {
	AccessKeyID string `json:"a"`
	Secret      string `json:"s"`
	Token       string `json:"t"`
	Issued      int64  `json:"i"`
	Expires     int64  `json:"e"`
	Principal   string `json:"p"`
	ARN         string `json:"r"`
}

// Seal returns the cookie value of s under keys.
func Seal(keys *keyring.Keyring, s *Session) string {
	b, err := json.Marshal(cookieWire{
		AccessKeyID: s.AccessKeyID, Secret: s.Secret.Reveal(), Token: s.Token,
		Issued: s.Issued.Unix(), Expires: s.Expires.Unix(), Principal: s.Principal, ARN: s.ARN,
	})
	if err != nil {
		panic(err) // strings and numbers always marshal
	}
	return base64.RawURLEncoding.EncodeToString(keys.SealToken(cookiePurpose, b))
}

// Open returns the session a cookie value holds, expired or not:
// keyring.ErrOpen when it was not sealed by Seal under keys.
func Open(keys *keyring.Keyring, cookie string) (*Session, error) {
	sealed, err := base64.RawURLEncoding.DecodeString(cookie)
	if err != nil {
		return nil, keyring.ErrOpen
	}
	plain, err := keys.OpenToken(cookiePurpose, sealed)
	if err != nil {
		return nil, err
	}
	var w cookieWire
	if err := json.Unmarshal(plain, &w); err != nil {
		return nil, keyring.ErrOpen
	}
	return &Session{
		AccessKeyID: w.AccessKeyID, Secret: keyring.NewSecret(w.Secret), Token: w.Token,
		Issued: time.Unix(w.Issued, 0).UTC(), Expires: time.Unix(w.Expires, 0).UTC(), Principal: w.Principal, ARN: w.ARN,
	}, nil
}

// CSRF is the session's CSRF value: an HMAC of its access key ID under
// its secret, which only the server (holding the cookie's key) can
// compute and only the page that signed in (or asks GET session) reads.
func (s *Session) CSRF() string {
	m := hmac.New(sha256.New, []byte(s.Secret.Reveal()))
	m.Write([]byte("jog-console-csrf\x00" + s.AccessKeyID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// sessionJSON is what the session API answers.
type sessionJSON struct {
	Principal string `json:"principal"`
	ARN       string `json:"arn"`
	AccessKey string `json:"accessKey"`
	Expires   string `json:"expires"`
	CSRF      string `json:"csrf"`
}

func (s *Session) json() sessionJSON {
	return sessionJSON{Principal: s.Principal, ARN: s.ARN, AccessKey: s.AccessKeyID, Expires: s.Expires.Format(time.RFC3339), CSRF: s.CSRF()}
}

// session serves /console/api/session: POST signs in, GET tells who is
// signed in, DELETE signs out.
func (h *Handler) session(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.signIn(w, r)
	case http.MethodGet:
		s, ok := h.authenticateNoCSRF(w, r)
		if !ok {
			return
		}
		// A session whose user is gone (or replaced) is over: the page
		// shows the sign-in rather than a console where all is denied.
		if _, err := h.principal(r.Context(), s); err != nil {
			h.log.Info("console session over", "principal", s.ARN, "session", s.AccessKeyID, "err", err)
			http.SetCookie(w, h.cookie(r, "", time.Time{}))
			writeError(w, http.StatusUnauthorized, codeNotSignedIn, "The session is over ("+s.ARN+" no longer exists); sign in again.")
			return
		}
		writeJSON(w, http.StatusOK, s.json())
	case http.MethodDelete:
		h.signOut(w, r)
	default:
		methodNotAllowed(w, "GET, POST, DELETE")
	}
}

// maxSignIn bounds a sign-in's JSON body.
const maxSignIn = 8 << 10

// signIn checks an access key and secret and, when they are right,
// issues a session and its cookie.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	if a := h.cfg.Anonymous; a != nil {
		if !a.Take() {
			writeError(w, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
			return
		}
		defer a.Release()
	}
	addr := h.throttleKey(r)
	now := h.cfg.Now()
	if wait, ok := h.throttle.allow(addr, now); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
		writeError(w, http.StatusTooManyRequests, "Throttling", "Too many failed sign-ins from this address; try again later.")
		return
	}
	// JSON only: a form of another site cannot send it without CORS's
	// preflight, which is never answered (no signing a victim in to the
	// attacker's account).
	if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); !strings.EqualFold(strings.TrimSpace(ct), "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "Sign in with Content-Type: application/json.")
		return
	}
	var in struct {
		AccessKey string `json:"accessKey"`
		SecretKey string `json:"secretKey"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxSignIn)).Decode(&in); err != nil {
		if errors.Is(err, bodytimeout.ErrTimeout) {
			writeError(w, http.StatusBadRequest, bodytimeout.Code, bodytimeout.Message)
			return
		}
		writeError(w, http.StatusBadRequest, "MalformedJSON", "The body must be JSON {\"accessKey\", \"secretKey\"}.")
		return
	}
	p, code, err := h.verify(r.Context(), in.AccessKey, in.SecretKey)
	if err != nil {
		h.log.Error("console sign-in failed", "err", err)
		writeError(w, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
		return
	}
	if code != "" {
		h.throttle.fail(addr, now)
		key := in.AccessKey
		if len(key) > 32 {
			key = "(too long: not logged, it may be a secret)"
		}
		h.log.Info("console sign-in refused", "access_key", key, "code", code, "remote", addr)
		msg := "The access key ID you provided does not exist in our records."
		if code == codeBadSignature {
			msg = "The secret access key you provided does not match the access key ID."
		}
		writeError(w, http.StatusUnauthorized, code, msg)
		return
	}
	s := h.issue(p)
	http.SetCookie(w, h.cookie(r, Seal(h.cfg.Sealer, s), s.Expires))
	h.log.Info("console sign-in", "principal", s.ARN, "session", s.AccessKeyID, "remote", addr)
	writeJSON(w, http.StatusOK, s.json())
}

// verify checks a long-term access key and its secret against the keys
// the S3 edge verifies signatures with (the root's, IAM users' active
// ones), comparing the secret in constant time, and returns its
// principal, or the S3 code of the refusal.
func (h *Handler) verify(ctx context.Context, id, secret string) (authz.Principal, string, error) {
	want, holder, known := h.cfg.Keys.KeyHolder(id)
	if !known {
		want = "\x00no such key" // compare anyway: the same work either way
	}
	a, b := sha256.Sum256([]byte(want)), sha256.Sum256([]byte(secret))
	match := subtle.ConstantTimeCompare(a[:], b[:]) == 1
	switch {
	case !known || id == "":
		return authz.Principal{}, codeInvalidKey, nil
	case !match:
		return authz.Principal{}, codeBadSignature, nil
	}
	p, err := h.cfg.Keys.Principal(ctx, id, holder)
	if errors.Is(err, sigv4.ErrInvalidAccessKeyID) {
		return authz.Principal{}, codeInvalidKey, nil // disabled or deleted meanwhile
	}
	return p, "", err
}

// issue returns a new session of p: fresh temporary credentials and
// their session token, as GetSessionToken issues them (an IAM user's
// keep the user's policies, the root's are the root's), lasting the
// console's session. The root's last as long as a user's, where STS
// gives the root an hour at most: these credentials never leave the
// server but sealed in the cookie (ADR 0023).
func (h *Handler) issue(p authz.Principal) *Session {
	now := h.cfg.Now().UTC().Truncate(time.Second)
	id, secret := iam.NewKeyPair(temporaryKeyPrefix)
	st := &sts.Session{AccessKeyID: id, Secret: secret, Issued: now, Expires: now.Add(h.cfg.Session), Kind: sts.KindRoot, Console: true}
	name := "root"
	if p.Type == policy.User {
		st.Kind, st.Name, st.ID = sts.KindUser, p.User.UserName, p.User.UserID
		name = p.User.UserName
	}
	return &Session{
		AccessKeyID: id, Secret: secret, Token: sts.Seal(h.cfg.Sealer, st),
		Issued: st.Issued, Expires: st.Expires, Principal: name, ARN: sts.CallerARN(h.cfg.Keys.STS.Account(), p),
	}
}

// cookie is the session cookie with value, lasting until expires
// (cleared when value is empty).
func (h *Handler) cookie(r *http.Request, value string, expires time.Time) *http.Cookie {
	c := &http.Cookie{
		Name: CookieName, Value: value, Path: "/console",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: h.secure(r),
	}
	if value == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
		c.MaxAge = int(expires.Sub(h.cfg.Now()) / time.Second)
	}
	return c
}

// signOut clears the cookie and revokes its session: on this gateway,
// and on every gateway sharing the store once the store has recorded it
// (Config.Revoker), which happens before the answer. A live session must
// show its CSRF value (a forged sign-out is refused); a cookie that is
// over already is just cleared.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		s, err := Open(h.cfg.Sealer, c.Value)
		if err == nil && h.cfg.Now().Before(s.Expires) && !h.revoked.has(s.AccessKeyID) {
			if !checkCSRF(w, r, s) {
				return
			}
			if err := h.recordSignOut(r.Context(), s); err != nil {
				// The cookie stays: the page may try again.
				h.log.Error("console sign-out not recorded", "principal", s.ARN, "session", s.AccessKeyID, "err", err)
				writeError(w, http.StatusInternalServerError, "InternalError", "The sign-out could not be recorded; try again.")
				return
			}
			h.log.Info("console sign-out", "principal", s.ARN, "session", s.AccessKeyID)
		}
	}
	http.SetCookie(w, h.cookie(r, "", time.Time{}))
	w.WriteHeader(http.StatusNoContent)
}

// authenticate returns the request's session, checking its CSRF header;
// else it has answered 401 or 403.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*Session, bool) {
	s, ok := h.authenticateNoCSRF(w, r)
	if !ok || !checkCSRF(w, r, s) {
		return nil, false
	}
	return s, true
}

// checkCSRF reports whether r carries s's CSRF value; else it has
// answered 403.
func checkCSRF(w http.ResponseWriter, r *http.Request, s *Session) bool {
	got := r.Header.Get(CSRFHeader)
	if want := s.CSRF(); got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		writeError(w, http.StatusForbidden, codeInvalidCsrf, "The "+CSRFHeader+" header is missing or wrong.")
		return false
	}
	return true
}

// authenticateNoCSRF returns the session of the request's cookie: 401
// when there is none (or it does not open, or was signed out), or it
// has expired.
func (h *Handler) authenticateNoCSRF(w http.ResponseWriter, r *http.Request) (*Session, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		writeError(w, http.StatusUnauthorized, codeNotSignedIn, "Sign in first.")
		return nil, false
	}
	s, err := Open(h.cfg.Sealer, c.Value)
	if err != nil || h.revoked.has(s.AccessKeyID) {
		http.SetCookie(w, h.cookie(r, "", time.Time{}))
		writeError(w, http.StatusUnauthorized, codeNotSignedIn, "The session is over; sign in again.")
		return nil, false
	}
	if !h.cfg.Now().Before(s.Expires) {
		http.SetCookie(w, h.cookie(r, "", time.Time{}))
		writeError(w, http.StatusUnauthorized, codeExpired, fmt.Sprintf("The session expired at %s; sign in again.", s.Expires.Format(time.RFC3339)))
		return nil, false
	}
	return s, true
}

// principal resolves the session to the principal its requests are
// authorized as, exactly as the S3 edge does with its token.
func (h *Handler) principal(ctx context.Context, s *Session) (authz.Principal, error) {
	_, holder, err := h.cfg.Keys.SessionKey(s.AccessKeyID, s.Token)
	if err != nil {
		return authz.Principal{}, err
	}
	return h.cfg.Keys.Principal(ctx, s.AccessKeyID, holder)
}
