package sigv2

import (
	"errors"
	"testing"

	"github.com/jogstore/jog/internal/sigv4"
)

type creds map[string]string

func (c creds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

func TestVerifyPOST(t *testing.T) {
	v := &Verifier{Credentials: creds{"AKID": "secret"}}
	policy := "eyJleHBpcmF0aW9uIjoiMjAzMC0wMS0wMVQwMDowMDowMFoiLCJjb25kaXRpb25zIjpbXX0="
	sig := SignPOST("secret", policy)
	if res, err := v.VerifyPOST("AKID", policy, sig); err != nil || res.AccessKey != "AKID" {
		t.Fatalf("VerifyPOST = %+v, %v", res, err)
	}
	if _, err := v.VerifyPOST("AKID", policy, SignPOST("other", policy)); !errors.Is(err, sigv4.ErrSignatureDoesNotMatch) {
		t.Errorf("wrong secret: %v", err)
	}
	if _, err := v.VerifyPOST("AKID", policy+"x", sig); !errors.Is(err, sigv4.ErrSignatureDoesNotMatch) {
		t.Errorf("policy changed: %v", err)
	}
	if _, err := v.VerifyPOST("NOPE", policy, sig); !errors.Is(err, sigv4.ErrInvalidAccessKeyID) {
		t.Errorf("unknown key: %v", err)
	}
}
