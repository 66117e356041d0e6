package s3api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorLogsNameRequestID: every warning or error the request-serving
// APIs (S3, IAM, STS) log names the request's ID ("id"), so that an error
// a client reports can be found in the server log by its
// x-amz-request-id. It reads the source: a log call added without the ID
// fails here.
func TestErrorLogsNameRequestID(t *testing.T) {
	checked := 0
	for _, dir := range []string{".", "../iamapi", "../stsapi", "../queryapi"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !isLogger(sel.X) {
					return true
				}
				switch sel.Sel.Name {
				case "Warn", "Error", "WarnContext", "ErrorContext":
				case "Log", "LogAttrs": // unless the level is plainly below warn
					if len(call.Args) > 1 && isLowLevel(call.Args[1]) {
						return true
					}
				default:
					return true
				}
				checked++
				if !namesID(call) {
					t.Errorf("%s: a %s call without the request ID (\"id\")", fset.Position(call.Pos()), sel.Sel.Name)
				}
				return true
			})
		}
	}
	if checked < 5 {
		t.Errorf("only %d log calls found: the check no longer sees them", checked)
	}
}

// isLogger reports whether x is a request handler's logger: h.log,
// h.cfg.Logger and the like.
func isLogger(x ast.Expr) bool {
	sel, ok := x.(*ast.SelectorExpr)
	return ok && (sel.Sel.Name == "log" || sel.Sel.Name == "Logger")
}

// isLowLevel reports whether a level argument is slog.LevelInfo or
// slog.LevelDebug written out.
func isLowLevel(x ast.Expr) bool {
	sel, ok := x.(*ast.SelectorExpr)
	return ok && (sel.Sel.Name == "LevelInfo" || sel.Sel.Name == "LevelDebug")
}

// namesID reports whether a log call's attributes include "id".
func namesID(call *ast.CallExpr) bool {
	found := false
	ast.Inspect(call, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Value == `"id"` {
			found = true
		}
		return !found
	})
	return found
}
