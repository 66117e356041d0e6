package s3api

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/postpolicy"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/tagging"
)

// servePost is PostObject's handler in the operations table. postObject
// authenticates and authorizes its form and checks its fields as serve
// does a request's headers (authorize, checkWire, withNotify), which read
// sets of operations derived from the table: the table referring to
// postObject itself would be an initialisation cycle (the compiler
// reports it), so it reaches postObject through postHandler, set in init.
func servePost(h *Handler, w http.ResponseWriter, r *request) error { return postHandler(h, w, r) }

var postHandler handlerFunc

func init() { postHandler = (*Handler).postObject }

// postObject serves a browser-based upload (PostObject): an HTML form
// POSTed to the bucket as multipart/form-data. The fields before the file
// are read (bounded by postpolicy.MaxPreData), the form's signature and
// its policy are checked, and then the file part streams into PutObject,
// content-length-range enforced as it streams: a form that breaks any
// condition stores nothing.
func (h *Handler) postObject(w http.ResponseWriter, r *request) error {
	f, err := postpolicy.ReadForm(r.Body, r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	if !f.Has("key") {
		return apiErr(http.StatusBadRequest, "InvalidArgument",
			"Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.")
	}
	r.route.Key = f.Key()
	if r.auth, err = h.authenticateForm(f); err != nil {
		return err
	}
	if r.who, err = h.principal(r.Request, r.auth.AccessKey, r.auth.Holder); err != nil {
		return err
	}
	h.releaseAnonymous(r) // authenticated: out of the anonymous share
	h.withNotify(r)
	// The form's fields are authorized as a PUT's headers (x-amz-acl,
	// tagging, the lock fields); a form whose fields do not parse is
	// refused after authorization, as any other bad request.
	hdr, herr := formHeaders(f)
	r.form = hdr
	if err := h.authorize(r); err != nil {
		return err
	}
	policy, err := postpolicy.ParsePolicy(f.Get("policy"))
	if err != nil {
		return err
	}
	rng, err := policy.Check(time.Now(), f, r.route.Bucket, service.MaxObjectSize)
	if err != nil {
		return err
	}
	if herr != nil {
		return herr
	}
	if err := checkWire(OpPostObject, hdr, nil); err != nil {
		return err
	}
	in, err := h.newObjectInput(r, hdr)
	if err != nil {
		return err
	}
	if in.Checksums, err = checksumRequest(hdr, nil, nil); err != nil {
		return err
	}
	if err := h.awaitRequest(r); err != nil { // serve leaves PostObject's to here
		return err
	}
	in.Body, in.Size = h.scheduledUpload(r, rng.Reader(f.File), -1), -1
	o, err := h.storeObject(w, r, hdr, in)
	if err != nil {
		return err
	}
	return postResponse(w, r, f, o)
}

// authenticateForm verifies the form's signature over its policy: SigV4
// (x-amz-algorithm, x-amz-credential, x-amz-date, x-amz-signature) or
// SigV2 (AWSAccessKeyId, signature). A form with neither is anonymous,
// which JOG does not serve.
func (h *Handler) authenticateForm(f *postpolicy.Form) (*sigv4.Result, error) {
	var required []string
	switch {
	case f.Has("x-amz-algorithm") || f.Has("x-amz-signature") || f.Has("x-amz-credential"):
		required = []string{"x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature", "policy"}
	case f.Has("awsaccesskeyid") || f.Has("signature"):
		required = []string{"AWSAccessKeyId", "signature", "policy"}
	default:
		return nil, errAccessDenied
	}
	for _, name := range required {
		if !f.Has(name) {
			return nil, apiErr(http.StatusBadRequest, "InvalidArgument", "Bucket POST must contain a field named '%s'.", name)
		}
	}
	if len(required) == 3 {
		res, err := h.verifierV2.VerifyPOSTWithToken(f.Get("AWSAccessKeyId"), f.Get("policy"), f.Get("signature"), f.Get("x-amz-security-token"))
		if err != nil {
			return nil, err
		}
		return &sigv4.Result{AccessKey: res.AccessKey, PayloadHash: sigv4.UnsignedPayload, Holder: res.Holder}, nil
	}
	if f.Get("x-amz-algorithm") != sigv4.Algorithm {
		return nil, sigv4.ErrUnsupportedAlgorithm
	}
	return h.verifier.VerifyPOSTWithToken(f.Get("x-amz-credential"), f.Get("x-amz-date"), f.Get("policy"), f.Get("x-amz-signature"), f.Get("x-amz-security-token"))
}

// formHeaderFields are the form fields that carry what a PUT carries in
// its headers, under the same names.
var formHeaderFields = map[string]bool{
	"cache-control": true, "content-type": true, "content-disposition": true, "content-encoding": true,
	"content-language": true, "expires": true, "content-md5": true,
	"x-amz-storage-class": true, "x-amz-website-redirect-location": true, "x-amz-security-token": true,
}

var formHeaderPrefixes = []string{"x-amz-meta-", "x-amz-checksum-", "x-amz-server-side-encryption", "x-amz-object-lock-", "x-amz-grant-"}

// formHeaders turns the form's fields into the request headers of the
// equivalent PUT, so that one parser and the wire table serve both: acl
// is x-amz-acl, x-amz-checksum-algorithm is x-amz-sdk-checksum-algorithm,
// tagging (a Tagging XML document, as PutObjectTagging's) is x-amz-tagging.
// The policy's own fields (key, policy, the signature, success_action_*)
// are not headers.
func formHeaders(f *postpolicy.Form) (http.Header, error) {
	h := http.Header{}
	for _, name := range f.Names() {
		v := f.Get(name)
		switch {
		case name == "tagging":
			set, err := tagging.ParseXML([]byte(v), tagging.MaxObjectTags)
			if err != nil {
				return nil, err
			}
			h.Set("X-Amz-Tagging", set.Query())
		case name == "acl":
			h.Set("X-Amz-Acl", v)
		case name == "x-amz-checksum-algorithm":
			h.Set("X-Amz-Sdk-Checksum-Algorithm", v)
		case formHeaderFields[name] || hasAnyPrefix(name, formHeaderPrefixes):
			h[http.CanonicalHeaderKey(name)] = []string{v}
		}
	}
	return h, nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// postResult is PostObject's answer with success_action_status 201.
type postResult struct {
	XMLName  xml.Name `xml:"PostResponse"`
	Location string   `xml:"Location"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	ETag     string   `xml:"ETag"`
}

// postResponse answers a stored upload as the form asks: a 303 to
// success_action_redirect (or the older redirect) with bucket, key and
// etag in its query; else success_action_status 200 or 201 (with a
// PostResponse document); else 204. A redirect that is not an absolute
// http(s) URL is ignored, as S3 ignores it.
func postResponse(w http.ResponseWriter, r *request, f *postpolicy.Form, o meta.Object) error {
	etag := `"` + o.ETag + `"`
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	loc := scheme + "://" + r.Host + strings.TrimSuffix(r.URL.Path, "/") + "/" + urlEncode(o.Key)
	w.Header().Set("Location", loc)
	target := f.Get("success_action_redirect")
	if target == "" {
		target = f.Get("redirect")
	}
	if u, err := url.Parse(target); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		q := u.Query()
		q.Set("bucket", o.Bucket)
		q.Set("key", o.Key)
		q.Set("etag", etag)
		u.RawQuery = q.Encode()
		w.Header().Set("Location", u.String())
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	switch f.Get("success_action_status") {
	case "200":
		w.WriteHeader(http.StatusOK)
	case "201":
		return writeXML(w, http.StatusCreated, postResult{Location: loc, Bucket: o.Bucket, Key: o.Key, ETag: etag})
	default:
		w.WriteHeader(http.StatusNoContent)
	}
	return nil
}
