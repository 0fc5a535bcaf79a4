package pool

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
)

// TestPoolKey: [[streams]] pool turns into the stream's pool setting, and each bad value
// is reported at its key (docs/scenario.md, "Keys of the mechanisms").
func TestPoolKey(t *testing.T) {
	s, probs := mechtest.Resolve(t, "[[streams]]\nname = \"r\"\nop = \"read\"\nrate = 5\ncost = \"1ms\"\npool = 16\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if want := []sim.Setting{Pool{Stream: 1, Name: "r", Size: 16}}; !reflect.DeepEqual(s.Mechanisms, want) {
		t.Errorf("settings %#v, want %#v", s.Mechanisms, want)
	}
	// explain's note names the stream, as the others do, not its index.
	if note, want := s.Mechanisms[0].Note(), "the figures ignore r's connection pool of 16"; !strings.HasPrefix(note, want) {
		t.Errorf("note %q, want it to begin %q", note, want)
	}
	for _, c := range []struct{ extra, want string }{
		{"pool = 0", "streams[0].pool: must be a whole number from 1 to 1000000 (got 0)"},
		{"pool = \"8\"", "streams[0].pool: expected an integer, got string \"8\""},
		{"pools = 8", `streams[0].pools: unknown key; did you mean "pool"?`},
	} {
		_, probs := mechtest.Resolve(t, c.extra+"\n")
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}
