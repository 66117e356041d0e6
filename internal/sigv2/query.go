package sigv2

import (
	"net/url"
	"strings"
)

// param is one decoded query parameter, in request order.
type param struct {
	key, value string
}

// parseQuery splits a raw query on '&' and each part on its first '=',
// decoding keys and values with url.QueryUnescape ('+' is a space, as S3 reads
// it). A part that does not decode is kept verbatim; empty parts are skipped.
func parseQuery(raw string) []param {
	if raw == "" {
		return nil
	}
	params := make([]param, 0, strings.Count(raw, "&")+1)
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		params = append(params, param{key: queryUnescape(k), value: queryUnescape(v)})
	}
	return params
}

func queryUnescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	u, err := url.QueryUnescape(s)
	if err != nil {
		return s
	}
	return u
}

func hasParam(params []param, name string) bool {
	for _, p := range params {
		if p.key == name {
			return true
		}
	}
	return false
}

// subresources are the query parameters signed as part of the canonical
// resource: the sub-resources and response-header overrides of the AWS
// RESTAuthentication guide, plus the later ones botocore signs.
var subresources = map[string]bool{
	"accelerate": true, "acl": true, "analytics": true, "cors": true,
	"delete": true, "inventory": true, "lifecycle": true, "location": true,
	"logging": true, "metrics": true, "notification": true, "object-lock": true,
	"partNumber": true, "policy": true, "replication": true, "requestPayment": true,
	"restore": true, "select": true, "select-type": true, "tagging": true,
	"torrent": true, "uploadId": true, "uploads": true, "versionId": true,
	"versioning": true, "versions": true, "website": true,
	"response-cache-control": true, "response-content-disposition": true,
	"response-content-encoding": true, "response-content-language": true,
	"response-content-type": true, "response-expires": true,
}
