package sts

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iam/keyring/keyringtest"
	"github.com/jogstore/jog/internal/sigv4"
)

func TestTokenRoundTrip(t *testing.T) {
	k := keyringtest.New(t, 1)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s := &Session{AccessKeyID: "ASIAEXAMPLE000000000", Secret: keyring.NewSecret("the-secret"), Issued: now, Expires: now.Add(time.Hour),
		Kind: KindRole, Name: "reader", ID: "AROAEXAMPLE", SessionName: "app", Policy: `{"Version":"2012-10-17"}`, PolicyARNs: []string{"arn:aws:iam::1:policy/p"}}
	tok := Seal(k, s)
	if strings.Contains(tok, "the-secret") || strings.ContainsAny(tok, "+/=") {
		t.Fatalf("token %q shows its secret or is not URL-safe", tok)
	}
	got, err := Open(k, s.AccessKeyID, tok, now.Add(59*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if got.Secret.Reveal() != "the-secret" || !got.Issued.Equal(s.Issued) || !got.Expires.Equal(s.Expires) || got.Kind != KindRole ||
		got.Name != "reader" || got.ID != "AROAEXAMPLE" || got.SessionName != "app" || got.Policy != s.Policy || len(got.PolicyARNs) != 1 {
		t.Fatalf("Open = %+v", got)
	}
	for _, c := range []struct {
		name      string
		key       *keyring.Keyring
		accessKey string
		token     string
		at        time.Time
		want      error
	}{
		{"expired", k, s.AccessKeyID, tok, now.Add(time.Hour), sigv4.ErrExpiredToken},
		{"another server key", keyringtest.New(t, 2), s.AccessKeyID, tok, now, sigv4.ErrInvalidToken},
		{"another access key", k, "ASIAOTHER00000000000", tok, now, sigv4.ErrInvalidToken},
		{"not base64", k, s.AccessKeyID, tok + "!", now, sigv4.ErrInvalidToken},
		{"truncated", k, s.AccessKeyID, tok[:len(tok)-4], now, sigv4.ErrInvalidToken},
		{"empty", k, s.AccessKeyID, "", now, sigv4.ErrInvalidToken},
		{"a sealed access-key secret", k, s.AccessKeyID,
			base64.RawURLEncoding.EncodeToString(k.Seal(s.AccessKeyID, keyring.NewSecret("x"))), now, sigv4.ErrInvalidToken},
		{"another purpose", k, s.AccessKeyID,
			base64.RawURLEncoding.EncodeToString(k.SealToken("other", []byte(`{"a":"`+s.AccessKeyID+`"}`))), now, sigv4.ErrInvalidToken},
	} {
		if _, err := Open(c.key, c.accessKey, c.token, c.at); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	for i := range raw {
		bad := bytes.Clone(raw)
		bad[i] ^= 0x20
		if _, err := Open(k, s.AccessKeyID, base64.RawURLEncoding.EncodeToString(bad), now); !errors.Is(err, sigv4.ErrInvalidToken) {
			t.Fatalf("byte %d changed: %v", i, err)
		}
	}
}

func TestPackedSize(t *testing.T) {
	if n := packedSize("", nil); n != 0 {
		t.Errorf("no policy: %d", n)
	}
	if n := packedSize("{ \n }", nil); n != 1 {
		t.Errorf("two characters: %d%%, want 1", n)
	}
	if n := packedSize(strings.Repeat("x", 2048), nil); n != 100 {
		t.Errorf("the quota: %d%%", n)
	}
	if err := checkSessionPolicy(strings.Repeat("x", 2000), []string{strings.Repeat("a", 60)}); !errors.Is(err, ErrPackedPolicyTooLarge) {
		t.Errorf("over the quota: %v", err)
	}
}
