package s3api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
)

var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete}

// routeWith routes method on path with the query parameters ps, each with
// a plausible value.
func routeWith(method, path string, ps ...string) Route {
	q := ""
	for _, p := range ps {
		if p == "" {
			continue
		}
		if q != "" {
			q += "&"
		}
		q += p
		switch p {
		case "list-type":
			q += "=2"
		case "id", "reservation", "uploadId", "versionId":
			q += "=x"
		}
	}
	target := path
	if q != "" {
		target += "?" + q
	}
	return ParseRoute(httptest.NewRequest(method, target, nil), "")
}

// TestRoutingParamsRoute: every routing parameter changes the route of
// some request (alone or beside another), so none is listed for nothing;
// a parameter outside the list changes none.
func TestRoutingParamsRoute(t *testing.T) {
	changes := func(p string) bool {
		for _, m := range routeMethods {
			for _, path := range []string{"/b", "/b/k"} {
				for _, base := range append([]string{""}, RoutingParams()...) {
					if base != p && routeWith(m, path, base) != routeWith(m, path, base, p) {
						return true
					}
				}
			}
		}
		return false
	}
	for _, p := range RoutingParams() {
		if !changes(p) {
			t.Errorf("routing parameter %q changes no route", p)
		}
	}
	for _, p := range []string{"x-id", "prefix", "Retention", "partNumber", "x-jog-reservation-id", "response-content-type"} {
		if routingParams[p] || changes(p) {
			t.Errorf("%q: routes, or is listed as routing", p)
		}
	}
}

// TestUnsignedRoutingSameAuthorization: SigV2 leaves the parameters of
// unsignedRouting out of the signature. That is safe only because each
// switches between operations S3 authorises alike: added to any request,
// alone or beside another routing parameter, it never changes the IAM
// actions required (on the resource or a copy source), nor whether the
// request counts as a listing. Any other routing parameter must be signed.
func TestUnsignedRoutingSameAuthorization(t *testing.T) {
	signed := SignedRoutingParams()
	for _, p := range unsignedRouting {
		if !routingParams[p] || slices.Contains(signed, p) {
			t.Errorf("%q: unsigned but not a routing parameter, or signed all the same", p)
		}
		switched := false
		for _, m := range routeMethods {
			for _, path := range []string{"/b", "/b/k"} {
				for _, base := range append([]string{""}, RoutingParams()...) {
					a, b := routeWith(m, path, base), routeWith(m, path, base, p)
					if a == b {
						continue
					}
					switched = true
					if !slices.Equal(a.Actions(), b.Actions()) || a.SourceAction() != b.SourceAction() || listOps.has(a.Op) != listOps.has(b.Op) {
						t.Errorf("%s %s?%s: %q turns %v (%v) into %v (%v): it must be signed",
							m, path, base, p, a.Op, a.Actions(), b.Op, b.Actions())
					}
				}
			}
		}
		if !switched {
			t.Errorf("%q switches no operation", p)
		}
	}
	if len(signed)+len(unsignedRouting) != len(RoutingParams()) {
		t.Errorf("signed %v and unsigned %v do not make up the routing parameters", signed, unsignedRouting)
	}
}

// TestRouterReadsOnlyRoutingParams is a backstop to routingQuery (which
// hides every other parameter from the router): every query parameter the
// router's code names is a routing parameter, so that SigV2 signs it.
func TestRouterReadsOnlyRoutingParams(t *testing.T) {
	fset := token.NewFileSet()
	for _, file := range []string{"router.go", "config_reads.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			// has(q, "p"), and q.Get("p") on the routing query.
			lit := call.Args[len(call.Args)-1]
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				if fn.Name != "has" {
					return true
				}
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); !ok || x.Name != "q" || fn.Sel.Name != "Get" {
					return true
				}
			default:
				return true
			}
			bl, ok := lit.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				return true
			}
			if p, _ := strconv.Unquote(bl.Value); !routingParams[p] {
				t.Errorf("%s: the router reads %q, which is not a routing parameter: add it to selectors (routeparams.go), so SigV2 signs it",
					fset.Position(bl.Pos()), p)
			}
			return true
		})
	}
}
