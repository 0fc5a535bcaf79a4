package report

import (
	"strings"
	"testing"
)

// TestTableFit: a table wider than the width is written in parts that each repeat its
// label columns and hold every other column once, in order, each no wider than the width;
// a table that fits is written whole.
func TestTableFit(t *testing.T) {
	tab := &Table{Left: 2, Head: []string{"nodes", "variant", "a", "b", "c", "d"}}
	for _, r := range [][]string{{"5", "base", strings.Repeat("x", 30), "1", strings.Repeat("y", 40), "2"}, {"6", "base", "x", "1", "y", "2"}} {
		tab.Rows = append(tab.Rows, r)
	}
	parts := tab.Fit(60)
	if len(parts) < 2 {
		t.Fatalf("%d parts for a table %d wide at width 60, want 2 or more", len(parts), tab.TextWidth())
	}
	var cols []string
	for _, p := range parts {
		if p.Head[0] != "nodes" || p.Head[1] != "variant" || p.TextWidth() > 60 {
			t.Errorf("part %v is %d wide, or lacks the labels", p.Head, p.TextWidth())
		}
		cols = append(cols, p.Head[2:]...)
		if p.Rows[0][0] != "5" || p.Rows[1][0] != "6" {
			t.Errorf("part %v: rows %v lost their labels", p.Head, p.Rows)
		}
	}
	if strings.Join(cols, ",") != "a,b,c,d" {
		t.Errorf("columns %v over the parts, want a, b, c, d once each", cols)
	}
	var b strings.Builder
	tab.FitText(&b, 60)
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) > 60 {
			t.Errorf("line %d wide: %q", len(l), l)
		}
	}
	if whole := tab.Fit(200); len(whole) != 1 || whole[0] != tab {
		t.Errorf("a table that fits is split in %d", len(whole))
	}
}
