package latch

import (
	"reflect"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
)

// TestPageLatchKeys: [table] page_latch and page_rows turn into the page latch's setting,
// with page_rows' default, and each bad value is reported at its key (docs/scenario.md,
// "Keys of the mechanisms").
func TestPageLatchKeys(t *testing.T) {
	s, probs := mechtest.Resolve(t, "[table]\npage_latch = \"20us\"\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if want := []sim.Setting{PageLatch{Hold: 20 * sim.Microsecond, Rows: 100}}; !reflect.DeepEqual(s.Mechanisms, want) {
		t.Errorf("settings %#v, want %#v", s.Mechanisms, want)
	}
	if s, _ := mechtest.Resolve(t, ""); len(s.Mechanisms) != 0 {
		t.Errorf("without page_latch: settings %#v, want none", s.Mechanisms)
	}
	for _, c := range []struct{ extra, want string }{
		{"page_latch = \"0s\"", `table.page_latch: must be positive (got "0s")`},
		{"page_latch = \"2s\"", `table.page_latch: must be at most 1s (got "2s"): a page latch is held for microseconds`},
		{"page_latch = 5", `table.page_latch: must be a duration string such as "1h" (got integer 5)`},
		{"page_latch = \"20us\"\npage_rows = 0", "table.page_rows: must be a whole number from 1 to 1000000 (got 0)"},
		{"page_rows = 10", `table.page_rows: is read only with table.page_latch, the time an insert holds its page's latch (add page_latch = "20us", or remove page_rows)`},
		{"page_lach = \"20us\"", `table.page_lach: unknown key; did you mean "page_latch"?`},
	} {
		_, probs := mechtest.Resolve(t, "[table]\n"+c.extra+"\n")
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}
