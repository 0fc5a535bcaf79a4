package docmark

import "testing"

// TestMarkers checks the marker engine on a small document.
func TestMarkers(t *testing.T) {
	doc := "a <!--fig x.one-->1<!--/fig--> and <!--fig y.two-->2<!--/fig-->\n<!--gen x.block-->\n```\nold\n```\n"
	p := &Parts{Owner: "x", Figs: map[string]string{"x.one": "11"}, Blocks: map[string]string{"x.block": "new\n"}, used: map[string]bool{}}
	got, err := p.render("doc.md", doc)
	want := "a <!--fig x.one-->11<!--/fig--> and <!--fig y.two-->2<!--/fig-->\n<!--gen x.block-->\n```\nnew\n```\n"
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	p = &Parts{Owner: "x", Figs: map[string]string{}, used: map[string]bool{}}
	if _, err := p.render("doc.md", doc); err == nil {
		t.Error("a marker with no figure was accepted")
	}
}
