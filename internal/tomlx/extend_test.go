package tomlx

import (
	"reflect"
	"strings"
	"testing"
)

// extended is a table whose struct declares one key; two more are declared with Extend.
type extended struct {
	Name string     `toml:"name"`
	Ext  Extensions `toml:"-"`
}

type latchKeys struct {
	Rows int `toml:"rows"`
}

func init() {
	Extend(reflect.TypeFor[extended](), "latch_rows", reflect.TypeFor[int]())
	Extend(reflect.TypeFor[extended](), "latch", reflect.TypeFor[latchKeys]())
}

// TestExtensionKeys decodes keys declared with Extend beside the struct's own, typed as
// declared, and reports a misspelt one with the declared key as its suggestion.
func TestExtensionKeys(t *testing.T) {
	doc, err := Parse("x.toml", []byte("name = \"a\"\nlatch_rows = 7\n[latch]\nrows = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	var v extended
	if err := doc.Decode(doc.Root, "", &v); err != nil {
		t.Fatal(err)
	}
	if v.Name != "a" {
		t.Errorf("name = %q, want a", v.Name)
	}
	if p, ok := v.Ext.Value("latch_rows").(*int); !ok || *p != 7 {
		t.Errorf("latch_rows = %#v, want *int 7", v.Ext.Value("latch_rows"))
	}
	if p, ok := v.Ext.Value("latch").(*latchKeys); !ok || p.Rows != 3 {
		t.Errorf("latch = %#v, want rows 3", v.Ext.Value("latch"))
	}
	if v.Ext.Value("missing") != nil {
		t.Error("a key the table did not give has a value")
	}

	// A copy decoded again keeps the first one's values apart.
	w := v
	doc2, _ := Parse("y.toml", []byte("latch_rows = 9\n"))
	if err := doc2.Decode(doc2.Root, "", &w); err != nil {
		t.Fatal(err)
	}
	if *v.Ext.Value("latch_rows").(*int) != 7 || *w.Ext.Value("latch_rows").(*int) != 9 {
		t.Errorf("copies share values: %d, %d", *v.Ext.Value("latch_rows").(*int), *w.Ext.Value("latch_rows").(*int))
	}

	bad, _ := Parse("z.toml", []byte("latch_row = 7\nlatch_rows = \"x\"\n"))
	err = bad.Decode(bad.Root, "", &extended{})
	for _, want := range []string{`z.toml:1: latch_row: unknown key; did you mean "latch_rows"?`, `z.toml:2: latch_rows: expected an integer`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
}
