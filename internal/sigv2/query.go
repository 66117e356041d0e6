package sigv2

import (
	"slices"

	"github.com/jogstore/jog/internal/sigv4"
)

func hasParam(params []sigv4.QueryParam, name string) bool {
	for _, p := range params {
		if p.Key == name {
			return true
		}
	}
	return false
}

// subresources are the query parameters always signed as part of the
// canonical resource: the sub-resources and response-header overrides of
// the AWS RESTAuthentication guide, plus the later ones botocore signs.
// Verifier.Routing adds the server's own.
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

// signedSet reports whether a query parameter is signed: one of
// subresources or of routing.
func signedSet(routing []string) func(name string) bool {
	return func(name string) bool { return subresources[name] || slices.Contains(routing, name) }
}
