package sigv4

import (
	"crypto/hmac"
	"fmt"
	"time"
)

// VerifyPOST authenticates a browser-based upload (an HTML form POST signed
// with SigV4): its fields x-amz-credential, x-amz-date and x-amz-signature,
// and the base64 policy document, which is the string to sign itself
// (AWS, "Calculating a Signature" for POST: the signature is
// hex(HMAC-SHA256(signing key, base64 policy))). The credential scope must
// name the server's region, s3 and the date of x-amz-date. There is no
// clock-skew check: the policy's expiration bounds the form's life, and the
// caller checks it.
func (v *Verifier) VerifyPOST(credential, amzDate, policy, signature string) (*Result, error) {
	return v.VerifyPOSTWithToken(credential, amzDate, policy, signature, "")
}

// VerifyPOSTWithToken is VerifyPOST for a form that carries a session
// token (its x-amz-security-token field; "" when none).
func (v *Verifier) VerifyPOSTWithToken(credential, amzDate, policy, signature, token string) (*Result, error) {
	c, err := parseCredential(credential)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQueryMalformed, err)
	}
	t, err := parseAmzDate(amzDate)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQueryMalformed, err)
	}
	if err := checkScope(c, v.region(), v.service(), t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQueryMalformed, err)
	}
	secret, session, err := v.secret(c.accessKey, token)
	if err != nil {
		return nil, err
	}
	key := signingKeys.get(secret, c.date, c.region, c.service)
	if want := signHex(key, policy); !hmac.Equal([]byte(want), []byte(signature)) {
		return nil, ErrSignatureDoesNotMatch
	}
	return &Result{AccessKey: c.accessKey, PayloadHash: UnsignedPayload, Signature: signature,
		Date: t.UTC(), Scope: c.scope(), Holder: session}, nil
}

// SignPOST is VerifyPOST's counterpart, for tests and tools: the signature
// of a base64 policy for the credential's scope.
func SignPOST(secret string, t time.Time, region, policy string) string {
	return signHex(SigningKey(secret, t.UTC().Format(scopeDateFormat), region, "s3"), policy)
}
