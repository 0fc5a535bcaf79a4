package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
)

// TestMakeRunWritesWhereTheTourReads: a reader runs `make run` as the README says, then
// follows the tour, which opens out/black-friday/report.html. make run wrote out/default/,
// so the tour's files were not there. Now the Makefile's run target writes the default
// scenario's own directory (the one `shardsim run` picks without -o), and the README and
// the tour both name it.
func TestMakeRunWritesWhereTheTourReads(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	m := regexp.MustCompile(`(?m)^run:.*\n\t(.*)$`).FindStringSubmatch(read("../../Makefile"))
	if m == nil {
		t.Fatal("the Makefile has no run target with a recipe")
	}
	o := regexp.MustCompile(`-o \$\(OUT\)/(\S+)`).FindStringSubmatch(m[1])
	if o == nil {
		t.Fatalf("make run's recipe %q names no -o $(OUT)/DIR", m[1])
	}
	got, want := "out/"+o[1], defaultOutDir(scenarios.Default, "")
	if got != want {
		t.Errorf("make run writes %s/, shardsim run %s writes %s/", got, scenarios.Default, want)
	}
	readme, tour := read("../../README.md"), read("../../docs/tour-black-friday.md")
	if !strings.Contains(readme, "`"+want+"/`") || strings.Contains(readme, "out/default") {
		t.Errorf("the README does not send make run's reader to %s/ (or still names out/default)", want)
	}
	if !strings.Contains(tour, want+"/report.html") {
		t.Errorf("the tour does not open %s/report.html", want)
	}
}
