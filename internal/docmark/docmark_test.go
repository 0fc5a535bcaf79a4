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

// A block quote is rewritten whole, wrapped.
func TestQuote(t *testing.T) {
	doc := "x\n<!--gen q.a-->\n> old text\n> more\n\ny\n"
	p := &Parts{Owner: "q", Blocks: map[string]string{"q.a": "one two three four"}, used: map[string]bool{}}
	got, err := p.render("doc.md", doc)
	if q := Quote("one two three four", 10); q != "> one two\n> three\n> four\n" {
		t.Errorf("Quote: %q", q)
	}
	if err != nil || got != "x\n<!--gen q.a-->\n> one two three four\n\ny\n" {
		t.Errorf("got %q, %v", got, err)
	}
}
