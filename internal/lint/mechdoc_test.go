package lint

import (
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureNamesNoMechanism holds docs/architecture.md to what its recipe says, "a
// new mechanism is one folder and its doc section, nothing else edited": the page speaks
// of the mechanisms in general and lists none, so that it needs no edit when a folder is
// added. Outside "Where a new thing goes", whose steps take their examples from the
// folders there are, it names no mechanism's folder (mechanisms/NAME), none of their
// identifiers (`NAME.X`), and its `mechanisms/*` row names none of them (`NAME`). A
// mechanism is a package under mechanisms/ that the table of packages does not name in a
// row of its own (as it names mechanisms/mechtest, the tests' helpers).
func TestArchitectureNamesNoMechanism(t *testing.T) {
	doc := readDoc(t)
	before, recipe, ok := strings.Cut(doc, "\n## Where a new thing goes\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Where a new thing goes" section`)
	}
	_, after, _ := strings.Cut(recipe, "\n## ")
	outside := before + "\n## " + after
	_, table, _ := strings.Cut(doc, "## The packages\n")
	table, _, _ = strings.Cut(table, "\n## ")
	named, row := map[string]bool{}, ""
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, "|"); len(cells) >= 5 {
			for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
				named[m[1]] = true
				if m[1] == "mechanisms/*" {
					row = line
				}
			}
		}
	}
	if row == "" {
		t.Fatal("docs/architecture.md's table of packages has no `mechanisms/*` row")
	}
	var mechs []string
	for path := range packages(t) {
		if name, ok := strings.CutPrefix(path, "mechanisms/"); ok && !named[path] && !strings.Contains(name, "/") {
			mechs = append(mechs, name)
		}
	}
	if len(mechs) < 2 {
		t.Fatalf("found %d mechanisms under mechanisms/: want them all", len(mechs))
	}
	for _, name := range mechs {
		for _, re := range []*regexp.Regexp{
			regexp.MustCompile(`mechanisms/` + name + `\b`),
			regexp.MustCompile("`" + name + `\.[A-Za-z]`),
		} {
			for _, loc := range re.FindAllStringIndex(outside, -1) {
				t.Errorf("docs/architecture.md names mechanism %s outside \"Where a new thing goes\" (line %d of the page less that section: %q): the page speaks of the mechanisms in general, so that a new one edits nothing here", name, strings.Count(outside[:loc[0]], "\n")+1, outside[loc[0]:loc[1]])
			}
		}
		if strings.Contains(row, "`"+name+"`") {
			t.Errorf("docs/architecture.md's `mechanisms/*` row names mechanism %s: it lists none, so that a new one edits nothing here", name)
		}
	}
}
