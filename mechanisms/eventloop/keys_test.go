package eventloop_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/eventloop"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// cluster is mechtest.Minimal with lines added to its [cluster] table.
func cluster(lines string) string {
	return strings.Replace(mechtest.Minimal, "nodes = 2\n", "nodes = 2\n"+lines, 1)
}

// TestWakeupCostKeys: [cluster] wakeup_cost turns into the event loop's setting, 0 or
// absent leaves it off, and each bad value is reported at its key, and by the loader at
// its line (docs/scenario.md, "Keys of the mechanisms").
func TestWakeupCostKeys(t *testing.T) {
	s, probs := mechtest.ResolveFile(t, cluster("wakeup_cost = \"40us\"\n"))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if want := []sim.Setting{eventloop.WakeUp{Cost: 40 * sim.Microsecond}}; !reflect.DeepEqual(s.Mechanisms, want) {
		t.Errorf("settings %#v, want %#v", s.Mechanisms, want)
	}
	for _, extra := range []string{"", "wakeup_cost = \"0s\"\n"} {
		if s, probs := mechtest.ResolveFile(t, cluster(extra)); len(probs) > 0 || len(s.Mechanisms) != 0 {
			t.Errorf("%q: settings %#v (%q), want none", extra, s.Mechanisms, probs)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{`wakeup_cost = "-1us"`, `cluster.wakeup_cost: must not be negative (got "-1us")`},
		{`wakeup_cost = "2s"`, `cluster.wakeup_cost: must be at most 1s (got "2s"): a wake-up costs micro- to milliseconds of CPU`},
		{`wakeup_cost = 40`, `cluster.wakeup_cost: must be a duration string such as "1h" (got integer 40)`},
		{`wakeup_cost = "soon"`, `cluster.wakeup_cost: not a duration "soon" (use Go syntax plus d for days: "250us", "15m", "2h", "30d")`},
		{`wakeup_cots = "40us"`, `cluster.wakeup_cots: unknown key; did you mean "wakeup_cost"?`},
	} {
		if _, probs := mechtest.ResolveFile(t, cluster(c.extra+"\n")); !slices.Contains(probs, c.want) {
			t.Errorf("%s: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
	const want = `x.toml:5: cluster.wakeup_cost: must not be negative (got "-1us")`
	if _, err := scenarios.LoadBytes("x.toml", []byte(cluster("wakeup_cost = \"-1us\"\n")), scenarios.Options{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q in it", err, want)
	}
}
