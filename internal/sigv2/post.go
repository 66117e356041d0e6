package sigv2

import "github.com/jogstore/jog/internal/sigv4"

// VerifyPOST authenticates a browser-based upload signed with SigV2: the
// form's AWSAccessKeyId and signature, base64(HMAC-SHA1(secret, base64
// policy)), over the policy document as sent. The policy's expiration,
// which the caller checks, bounds the form's life.
func (v *Verifier) VerifyPOST(accessKey, policy, sig string) (*Result, error) {
	return v.VerifyPOSTWithToken(accessKey, policy, sig, "")
}

// VerifyPOSTWithToken is VerifyPOST for a form that carries a session
// token (its x-amz-security-token field; "" when none).
func (v *Verifier) VerifyPOSTWithToken(accessKey, policy, sig, token string) (*Result, error) {
	secret, session, err := v.secret(accessKey, token)
	if err != nil {
		return nil, err
	}
	if !signatureMatches(secret, policy, sig) {
		return nil, sigv4.ErrSignatureDoesNotMatch
	}
	return &Result{AccessKey: accessKey, Holder: session}, nil
}

// SignPOST is VerifyPOST's counterpart, for tests and tools.
func SignPOST(secret, policy string) string { return signature(secret, policy) }
