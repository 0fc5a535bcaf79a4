package lint

import (
	"go/ast"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// complexityBound is the cyclomatic complexity past which a function must be named in
// docs/architecture.md with the reason it stays whole.
const complexityBound = 15

// complexity is a function's cyclomatic complexity as gocyclo counts it: one, plus one for
// each if, for, range, case and select clause (not default) and each && and ||.
func complexity(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn.Body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// funcName is pkg.Func or pkg.Type.Method, as docs/architecture.md writes it.
func funcName(dir string, fn *ast.FuncDecl) string {
	name := fn.Name.Name
	if fn.Recv != nil && len(fn.Recv.List) > 0 {
		t := fn.Recv.List[0].Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		if ix, ok := t.(*ast.IndexExpr); ok {
			t = ix.X
		}
		if id, ok := t.(*ast.Ident); ok {
			name = id.Name + "." + name
		}
	}
	return dir + "." + name
}

// funcRef is a function as the list names it: package.Func or package.Type.Method.
var funcRef = regexp.MustCompile(`^[a-z][a-z/]*\.[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$`)

var complexList = regexp.MustCompile("(?s)<!--complex-->(.*?)<!--/complex-->")

// TestComplexFunctions holds the list of functions over complexityBound in
// docs/architecture.md (between <!--complex--> and <!--/complex-->, one backticked name
// each) to the code, both ways: a function that grows past the bound must be named there,
// with its reason, and one that is split must leave the list.
func TestComplexFunctions(t *testing.T) {
	var got []string
	for dir, p := range packages(t) {
		for _, f := range p.files {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
					if c := complexity(fn); c > complexityBound {
						got = append(got, funcName(dir, fn))
						t.Logf("%s: %d", funcName(dir, fn), c)
					}
				}
			}
		}
	}
	slices.Sort(got)
	m := complexList.FindStringSubmatch(readDoc(t))
	if m == nil {
		t.Fatal("docs/architecture.md has no <!--complex--> list")
	}
	var listed []string
	for _, b := range backticked.FindAllStringSubmatch(m[1], -1) {
		if funcRef.MatchString(b[1]) { // the list's prose quotes flags and commands too
			listed = append(listed, b[1])
		}
	}
	slices.Sort(listed)
	if !slices.Equal(got, listed) {
		t.Errorf("functions over complexity %d: the code has\n\t%s\ndocs/architecture.md lists\n\t%s",
			complexityBound, strings.Join(got, ", "), strings.Join(listed, ", "))
	}
}
