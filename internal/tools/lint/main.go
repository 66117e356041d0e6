// Command lint runs the analyzers that `go vet` and staticcheck do not:
// errcheck (an error result dropped on the floor), bodyclose (an HTTP
// response body never closed) and sqlclosecheck (sql.Rows or sql.Stmt not
// closed by a defer). scripts/test.sh runs it as `go tool lint ./...`; it
// takes the flags of any multichecker.
//
// errcheck skips what golangci-lint's default exclusions skip, plus
// Rollback (see excluded), and a receive from an error channel used as a
// statement (`<-done`, a wait). bodyclose skips _test.go files: their helpers
// read and close a body and hand back the response, which bodyclose cannot
// follow. A finding that is wrong on one line is silenced on that line
// with a `//nolint:NAME // why` comment, as golangci-lint reads it.
package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"slices"
	"strings"

	"github.com/kisielk/errcheck/errcheck"
	"github.com/ryanrolds/sqlclosecheck/pkg/analyzer"
	"github.com/timakin/bodyclose/passes/bodyclose"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/multichecker"
)

// excluded matches the full names (types.Func.FullName) of the functions
// whose dropped errors errcheck does not report, beyond errcheck's own
// defaults (bytes.Buffer and strings.Builder writes, crypto/rand.Read …):
// Close and Flush (checked by hand where they matter, on a commit path),
// Rollback (deferred after Commit, where it can only say "done"), the fmt
// print family, os.Remove/RemoveAll and os.Setenv/Unsetenv.
var excluded = regexp.MustCompile(`\.(Close|Flush|Rollback)$|^fmt\.(Fp|P)rint(f|ln)?$|^os\.(Remove|RemoveAll|Setenv|Unsetenv)$`)

// errcheckFiltered reports errcheck's findings less the excluded ones and
// the receives (staticcheck's S1005 wants `<-done`, not `_ = <-done`). The
// wrapped analyzer runs as its requirement, and only a root analyzer's
// findings are printed.
var errcheckFiltered = &analysis.Analyzer{
	Name:     "errcheck",
	Doc:      "check for unchecked errors, less Close, Flush, Rollback, print and os.Remove",
	Requires: []*analysis.Analyzer{errcheck.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		files := map[string]*token.File{}
		receives := map[token.Pos]bool{} // `<-done` as a statement waits: not a dropped error
		for _, f := range pass.Files {
			tf := pass.Fset.File(f.Pos())
			files[tf.Name()] = tf
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := n.(*ast.ExprStmt); ok {
					if u, ok := ast.Unparen(s.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
						receives[u.OpPos] = true
					}
				}
				return true
			})
		}
		for _, e := range pass.ResultOf[errcheck.Analyzer].(errcheck.Result).UncheckedErrors {
			tf := files[e.Pos.Filename]
			if tf == nil || excluded.MatchString(e.FuncName) {
				continue
			}
			if pos := tf.Pos(e.Pos.Offset); !receives[pos] {
				pass.Reportf(pos, "unchecked error: %s", e.FuncName)
			}
		}
		return nil, nil
	},
}

// filtered wraps a: its findings on a line with a `//nolint:NAME` comment
// are dropped, and so are those in _test.go files when skipTests is set.
func filtered(a *analysis.Analyzer, skipTests bool) *analysis.Analyzer {
	w := *a
	w.Run = func(pass *analysis.Pass) (any, error) {
		silenced := nolintLines(pass, a.Name)
		p := *pass
		p.Report = func(d analysis.Diagnostic) {
			pos := pass.Fset.Position(d.Pos)
			if skipTests && strings.HasSuffix(pos.Filename, "_test.go") || silenced[pos.Filename][pos.Line] {
				return
			}
			pass.Report(d)
		}
		return a.Run(&p)
	}
	return &w
}

// nolintLines returns, per file, the lines that carry a `//nolint:name`
// comment (name alone or in a comma list).
func nolintLines(pass *analysis.Pass, name string) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	for _, f := range pass.Files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if slices.Contains(nolintNames(c), name) {
					pos := pass.Fset.Position(c.Pos())
					if out[pos.Filename] == nil {
						out[pos.Filename] = map[int]bool{}
					}
					out[pos.Filename][pos.Line] = true
				}
			}
		}
	}
	return out
}

// nolintNames parses "//nolint:a,b // why" into [a b].
func nolintNames(c *ast.Comment) []string {
	rest, ok := strings.CutPrefix(c.Text, "//nolint:")
	if !ok {
		return nil
	}
	list, _, _ := strings.Cut(rest, " ")
	return strings.Split(list, ",")
}

func main() {
	multichecker.Main(
		filtered(errcheckFiltered, false),
		filtered(bodyclose.Analyzer, true),
		filtered(analyzer.NewDeferOnlyAnalyzer(), false),
	)
}
