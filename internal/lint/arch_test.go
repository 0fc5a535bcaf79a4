package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/shardsim/shardsim/"

// root is the repository's top, two levels above this package.
var root = filepath.Join("..", "..")

// pkg is one package of the repository as its sources say: its non-test files' imports of
// the module, and its functions.
type pkg struct {
	imports map[string]bool
	files   []*ast.File
	fset    *token.FileSet
}

// packages reads every package directory of the repository (testdata and dot folders
// skipped), test files left out.
func packages(t *testing.T) map[string]*pkg {
	t.Helper()
	out := map[string]*pkg{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "out" || n == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := out[rel]
		if p == nil {
			p = &pkg{imports: map[string]bool{}, fset: token.NewFileSet()}
			out[rel] = p
		}
		f, err := parser.ParseFile(p.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		p.files = append(p.files, f)
		for _, im := range f.Imports {
			q, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(q, module); ok && dep != rel {
				p.imports[dep] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// docRow is a row of docs/architecture.md's table of packages: the packages it names and
// the module's packages its last column says they depend on (any, for "all of the above").
// A name or a dependency written FOLDER/* stands for every package in the folder that no
// row names itself, as each mechanism's folder under mechanisms/ (docs/architecture.md,
// "Where a new thing goes"): a row of such names lists their dependencies together, and a
// dependency FOLDER/* is met by an import of any of them.
type docRow struct {
	names []string
	deps  map[string]bool
	any   bool
	under []string // dependencies written FOLDER/*: the folders
}

var backticked = regexp.MustCompile("`([^`]+)`")

func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docTable reads the table under "## The packages"; a backticked word of the last column
// counts as a dependency when it is one of the repository's packages.
func docTable(t *testing.T, doc string, known map[string]*pkg) []docRow {
	t.Helper()
	_, section, ok := strings.Cut(doc, "## The packages\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## The packages" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	named := map[string]bool{} // the packages a row names itself, in its first column
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); len(cells) >= 5 {
			for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
				named[m[1]] = true
			}
		}
	}
	var rows []docRow
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "package" {
			continue
		}
		r := docRow{deps: map[string]bool{}}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			folder, ok := strings.CutSuffix(m[1], "/*")
			if !ok {
				r.names = append(r.names, m[1])
				continue
			}
			for name := range known {
				if strings.HasPrefix(name, folder+"/") && !named[name] {
					r.names = append(r.names, name)
				}
			}
		}
		sort.Strings(r.names)
		last := cells[len(cells)-2]
		r.any = strings.Contains(last, "all of the above")
		for _, m := range backticked.FindAllStringSubmatch(last, -1) {
			if folder, ok := strings.CutSuffix(m[1], "/*"); ok {
				r.under = append(r.under, folder)
				continue
			}
			if known[m[1]] != nil && !slices.Contains(r.names, m[1]) {
				r.deps[m[1]] = true
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// TestPackageTable holds docs/architecture.md's table of packages to the code: every
// package has a row, no row names a package that is gone, every import of the module is
// in its row, and every dependency a row lists is imported (by one of the row's packages,
// where it names several). An import that goes against the drawn direction fails here.
func TestPackageTable(t *testing.T) {
	pkgs := packages(t)
	rows := docTable(t, readDoc(t), pkgs)
	if len(rows) < 10 {
		t.Fatalf("read %d rows from docs/architecture.md's table of packages; want the whole table", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		used := map[string]bool{}
		for _, name := range r.names {
			p := pkgs[name]
			if p == nil {
				t.Errorf("docs/architecture.md names package %s, which has no Go files", name)
				continue
			}
			seen[name] = true
			for dep := range p.imports {
				used[dep] = true
				if !r.any && !r.deps[dep] && !r.isUnder(dep) {
					t.Errorf("%s imports %s, which its row in docs/architecture.md does not list", name, dep)
				}
			}
		}
		for dep := range r.deps {
			if !used[dep] && !r.any {
				t.Errorf("docs/architecture.md says %s depends on %s, which none of them imports", strings.Join(r.names, ", "), dep)
			}
		}
		for _, folder := range r.under {
			if !slices.ContainsFunc(slices.Collect(maps.Keys(used)), func(dep string) bool { return strings.HasPrefix(dep, folder+"/") }) {
				t.Errorf("docs/architecture.md says %s depends on %s/*, but none of them imports a package there", strings.Join(r.names, ", "), folder)
			}
		}
	}
	var missing []string
	for name := range pkgs {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("package %s has no row in docs/architecture.md's table of packages", name)
	}
}

// isUnder reports whether dep is in a folder the row lists as FOLDER/*.
func (r docRow) isUnder(dep string) bool {
	return slices.ContainsFunc(r.under, func(folder string) bool { return strings.HasPrefix(dep, folder+"/") })
}

// TestUnitsIsALeaf: units, which every output writes its quantities through, imports
// nothing of the module, so that any package may use it.
func TestUnitsIsALeaf(t *testing.T) {
	p := packages(t)["units"]
	if p == nil {
		t.Fatal("no package units")
	}
	if len(p.imports) > 0 {
		t.Errorf("units imports %v of the module; it must import none", keys(p.imports))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var layerList = regexp.MustCompile("(?s)<!--layers-->(.*?)<!--/layers-->")

// folderOf is the top folder a package path lies in.
func folderOf(path string) string {
	top, _, _ := strings.Cut(path, "/")
	return top
}

// TestFolderLayers holds the code to docs/architecture.md's list of folders (between
// <!--layers--> and <!--/layers-->, one item a line, the folders it names backticked at
// its start, the top first): every folder is listed once, and a package imports only
// packages of its own folder or of folders listed below it.
func TestFolderLayers(t *testing.T) {
	m := layerList.FindStringSubmatch(readDoc(t))
	if m == nil {
		t.Fatal("docs/architecture.md has no <!--layers--> list")
	}
	rank := map[string]int{}
	item := regexp.MustCompile("^- ((?:`[a-z]+`(?:, )?)+)")
	for _, line := range strings.Split(m[1], "\n") {
		im := item.FindStringSubmatch(line)
		if im == nil {
			continue
		}
		// The folders one item names together are peers: one rank, so either may import
		// the other (Go refuses a cycle between them).
		line := len(rank)
		for _, name := range backticked.FindAllStringSubmatch(im[1], -1) {
			if _, dup := rank[name[1]]; dup {
				t.Errorf("docs/architecture.md lists folder %s twice", name[1])
			}
			rank[name[1]] = line
		}
	}
	pkgs := packages(t)
	for path, p := range pkgs {
		from := folderOf(path)
		rf, ok := rank[from]
		if !ok {
			t.Errorf("folder %s (package %s) is not in docs/architecture.md's list of folders", from, path)
			continue
		}
		for dep := range p.imports {
			to := folderOf(dep)
			if rt, ok := rank[to]; ok && to != from && rt < rf {
				t.Errorf("%s imports %s: folder %s is listed above %s in docs/architecture.md, so the import goes against the layers", path, dep, to, from)
			}
		}
	}
	for name := range rank {
		found := false
		for path := range pkgs {
			found = found || folderOf(path) == name
		}
		if !found {
			t.Errorf("docs/architecture.md lists folder %s, which holds no package", name)
		}
	}
}
