package lint

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// schemeKinds reads keyspace's shard schemes from its sources: each constant declared of
// type SchemeKind, with the file that declares it and the files that register it
// (registerScheme(NAME, ...)).
func schemeKinds(t *testing.T, p *pkg) (declared, registered map[string]string) {
	t.Helper()
	declared, registered = map[string]string{}, map[string]string{}
	for _, f := range p.files {
		file := filepath.Base(p.fset.Position(f.Pos()).Filename)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "SchemeKind" {
						for _, n := range vs.Names {
							declared[n.Name] = file
						}
					}
				}
			}
		}
		ast.Inspect(f, func(x ast.Node) bool {
			if call, ok := x.(*ast.CallExpr); ok && len(call.Args) > 0 {
				if fn, ok := call.Fun.(*ast.Ident); ok && fn.Name == "registerScheme" {
					if id, ok := call.Args[0].(*ast.Ident); ok {
						registered[id.Name] = file
					}
				}
			}
			return true
		})
	}
	return declared, registered
}

// TestSchemesOnlyInKeyspace holds docs/architecture.md's "Where a new thing goes" for a
// shard scheme to the code: each scheme is one file of keyspace, which declares its
// SchemeKind and registers it, and names no other scheme; outside keyspace no package's
// code names a scheme (scenario resolves, compile describes, estimates and builds, through
// the registry's methods), so that a new scheme edits no other folder.
func TestSchemesOnlyInKeyspace(t *testing.T) {
	pkgs := packages(t)
	ks := pkgs["keyspace"]
	if ks == nil {
		t.Fatal("no package keyspace")
	}
	declared, registered := schemeKinds(t, ks)
	if len(declared) < 4 {
		t.Fatalf("found %d SchemeKind constants in keyspace (%v); want every scheme's", len(declared), declared)
	}
	for name, file := range declared {
		if registered[name] != file {
			t.Errorf("keyspace.%s is declared in keyspace/%s but registered in %q: a scheme is one file", name, file, registered[name])
		}
	}
	for _, f := range ks.files {
		file := filepath.Base(ks.fset.Position(f.Pos()).Filename)
		ast.Inspect(f, func(x ast.Node) bool {
			if id, ok := x.(*ast.Ident); ok {
				if home, ok := declared[id.Name]; ok && home != file && file != "scheme.go" {
					t.Errorf("keyspace/%s names %s, the scheme of keyspace/%s: a scheme's code is in its own file", file, id.Name, home)
				}
			}
			return true
		})
	}
	var paths []string
	for path := range pkgs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if path == "keyspace" {
			continue
		}
		p := pkgs[path]
		for _, f := range p.files {
			local := ""
			for _, im := range f.Imports {
				if q, _ := strconv.Unquote(im.Path.Value); q == module+"keyspace" {
					local = "keyspace"
					if im.Name != nil {
						local = im.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(x ast.Node) bool {
				if sel, ok := x.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
						if _, ok := declared[sel.Sel.Name]; ok {
							t.Errorf("%s names keyspace.%s: outside keyspace a scheme is reached through the registry (docs/architecture.md, \"Where a new thing goes\")", p.fset.Position(sel.Pos()), sel.Sel.Name)
						}
					}
				}
				return true
			})
		}
	}
}
