package lint

import (
	"go/ast"
	"sort"
	"strings"
	"testing"
)

// settingMethods are the methods of sim.Setting: a type under mechanisms/ that declares
// all of them is a mechanism's setting.
var settingMethods = []string{"On", "Note", "Waiter"}

// TestSettingsSayWhyOneCore holds every mechanism's setting under mechanisms/ to saying in
// its own words why a run with it stays on one engine (sim.Coupling's Couples), since no
// mechanism's run is split among workers yet: the core's fallback (sim.OneCoreReason)
// names no mechanism, so a setting without a reason would leave `run --engine-cores`'s
// note saying only that some mechanism is not split. Couples must be declared on the
// receiver the setting is given by: on the value when On is, so that the value in
// Model.Mechanisms is a sim.Coupling.
func TestSettingsSayWhyOneCore(t *testing.T) {
	type recv struct{ dir, typ string }
	methods := map[recv]map[string]bool{} // method name: declared on a pointer receiver
	for dir, p := range packages(t) {
		if !strings.HasPrefix(dir, "mechanisms/") {
			continue
		}
		for _, f := range p.files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
					continue
				}
				typ, ptr := fd.Recv.List[0].Type, false
				if s, ok := typ.(*ast.StarExpr); ok {
					typ, ptr = s.X, true
				}
				id, ok := typ.(*ast.Ident)
				if !ok {
					continue
				}
				r := recv{dir, id.Name}
				if methods[r] == nil {
					methods[r] = map[string]bool{}
				}
				methods[r][fd.Name.Name] = ptr
			}
		}
	}
	rs := make([]recv, 0, len(methods))
	for r := range methods {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].dir+"."+rs[i].typ < rs[j].dir+"."+rs[j].typ })
	var settings []string
	for _, r := range rs {
		ms := methods[r]
		setting := true
		for _, m := range settingMethods {
			if _, ok := ms[m]; !ok {
				setting = false
			}
		}
		if !setting {
			continue
		}
		name := r.dir + "." + r.typ
		settings = append(settings, name)
		ptr, ok := ms["Couples"]
		switch {
		case !ok:
			t.Errorf("%s is a mechanism's setting that does not say why its runs stay on one engine: give it a Couples method (sim.Coupling) in its own words", name)
		case ptr && !ms["On"]:
			t.Errorf("%s declares Couples on a pointer and On on the value: the value in Model.Mechanisms is no sim.Coupling", name)
		}
	}
	if len(settings) == 0 {
		t.Fatal("found no mechanism's setting under mechanisms/: the test reads them wrong")
	}
	t.Logf("settings: %s", strings.Join(settings, ", "))
}
