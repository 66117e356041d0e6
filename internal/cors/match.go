package cors

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// Errors of a preflight (OPTIONS) request, in the order S3 checks.
var (
	ErrNoOrigin   = errors.New("preflight without Origin")
	ErrNoBucket   = errors.New("preflight to a bucket that does not exist")
	ErrNotEnabled = errors.New("preflight to a bucket without a CORS configuration")
	// MethodError (below) comes next.
	ErrNotAllowed = errors.New("no CORS rule allows the request")
	// ErrNoConfig is GetBucketCors of a bucket without a configuration.
	ErrNoConfig = errors.New("no CORS configuration")
)

// MethodError is a preflight whose Access-Control-Request-Method is
// missing (Missing) or not one a rule can allow.
type MethodError struct {
	Method  string
	Missing bool
}

func (e *MethodError) Error() string {
	if e.Missing {
		return "Invalid Access-Control-Request-Method: null"
	}
	return "Invalid Access-Control-Request-Method: " + e.Method
}

// S3Error is what a client is told (s3api.ClientError).
func (e *MethodError) S3Error() (code string, status int, message string) {
	return "BadRequest", http.StatusBadRequest, e.Error()
}

// Vary is what every CORS answer varies on, preflight or not.
const Vary = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"

// Rules is a configuration compiled for matching; nil matches nothing.
// It is immutable, so one value serves concurrent requests.
type Rules struct {
	config Config
	rules  []rule
}

type rule struct {
	origins []pattern
	methods uint8     // methodBit set
	headers []pattern // lowercase
	// Response header values, built once.
	allowMethods, expose, maxAge string
}

// pattern is an origin or header pattern: a literal, or prefix*suffix.
type pattern struct {
	prefix, suffix string
	wild           bool
	any            bool // the pattern is "*"
}

func newPattern(s string) pattern {
	before, after, wild := strings.Cut(s, "*")
	return pattern{prefix: before, suffix: after, wild: wild, any: s == "*"}
}

func (p pattern) match(s string) bool {
	if !p.wild {
		return s == p.prefix
	}
	return len(s) >= len(p.prefix)+len(p.suffix) &&
		strings.HasPrefix(s, p.prefix) && strings.HasSuffix(s, p.suffix)
}

// Compile prepares a valid configuration for matching.
func Compile(c Config) *Rules {
	rs := &Rules{config: c, rules: make([]rule, len(c.Rules))}
	for i, r := range c.Rules {
		cr := &rs.rules[i]
		for _, o := range r.AllowedOrigins {
			cr.origins = append(cr.origins, newPattern(o))
		}
		for _, m := range r.AllowedMethods {
			cr.methods |= methodBit(m)
		}
		for _, h := range r.AllowedHeaders {
			cr.headers = append(cr.headers, newPattern(strings.ToLower(h)))
		}
		cr.allowMethods = strings.Join(r.AllowedMethods, ", ")
		cr.expose = strings.Join(r.ExposeHeaders, ", ")
		if r.MaxAgeSeconds != nil {
			cr.maxAge = strconv.Itoa(*r.MaxAgeSeconds)
		}
	}
	return rs
}

// Config returns the configuration rs was compiled from.
func (rs *Rules) Config() Config { return rs.config }

// Match is a rule that allowed a request, ready to answer it.
type Match struct {
	r       *rule
	origin  string   // the Access-Control-Allow-Origin value
	headers []string // requested headers, lowercase (preflight)
}

// find returns the first rule that allows origin, method and every one of
// headers (lowercase).
func (rs *Rules) find(origin, method string, headers []string) (Match, bool) {
	bit := methodBit(method)
	if rs == nil || bit == 0 {
		return Match{}, false
	}
	for i := range rs.rules {
		r := &rs.rules[i]
		if r.methods&bit == 0 {
			continue
		}
		allow, ok := r.matchOrigin(origin)
		if !ok || !r.allowsHeaders(headers) {
			continue
		}
		return Match{r: r, origin: allow, headers: headers}, true
	}
	return Match{}, false
}

// matchOrigin returns the Access-Control-Allow-Origin value for origin:
// "*" when the rule's first pattern to match it is "*".
func (r *rule) matchOrigin(origin string) (string, bool) {
	for _, p := range r.origins {
		if p.match(origin) {
			if p.any {
				return "*", true
			}
			return origin, true
		}
	}
	return "", false
}

func (r *rule) allowsHeaders(headers []string) bool {
next:
	for _, h := range headers {
		for _, p := range r.headers {
			if p.match(h) {
				continue next
			}
		}
		return false
	}
	return true
}

// Preflight evaluates an OPTIONS request to a bucket with rules rs (nil:
// the bucket has none). An empty origin counts as none; hasMethod tells an
// empty Access-Control-Request-Method from a missing one. requestHeaders is
// Access-Control-Request-Headers as sent. The errors are ErrNoOrigin,
// ErrNotEnabled, *MethodError and ErrNotAllowed, checked in that order.
func (rs *Rules) Preflight(origin, method, requestHeaders string, hasMethod bool) (Match, error) {
	switch {
	case origin == "":
		return Match{}, ErrNoOrigin
	case rs == nil:
		return Match{}, ErrNotEnabled
	case !hasMethod:
		return Match{}, &MethodError{Missing: true}
	case methodBit(method) == 0:
		return Match{}, &MethodError{Method: method}
	}
	m, ok := rs.find(origin, method, SplitHeaders(requestHeaders))
	if !ok {
		return Match{}, ErrNotAllowed
	}
	return m, nil
}

// Actual evaluates a request that is not a preflight: method is its
// Access-Control-Request-Method when it sends one, else its method. Its
// headers are not checked.
func (rs *Rules) Actual(origin, method string) (Match, bool) {
	return rs.find(origin, method, nil)
}

// SplitHeaders splits an Access-Control-Request-Headers value into
// lowercase names, skipping empty items.
func SplitHeaders(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	parts := strings.Split(v, ",")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// SetHeaders writes the CORS response headers of m to h. A preflight also
// gets Access-Control-Allow-Headers with the requested headers (all of
// them allowed).
func (m Match) SetHeaders(h http.Header, preflight bool) {
	h.Set("Access-Control-Allow-Origin", m.origin)
	if m.origin != "*" {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	h.Set("Access-Control-Allow-Methods", m.r.allowMethods)
	if preflight && len(m.headers) > 0 {
		h.Set("Access-Control-Allow-Headers", strings.Join(m.headers, ", "))
	}
	if m.r.expose != "" {
		h.Set("Access-Control-Expose-Headers", m.r.expose)
	}
	if m.r.maxAge != "" {
		h.Set("Access-Control-Max-Age", m.r.maxAge)
	}
	h.Set("Vary", Vary)
}
