package eventloop_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/eventloop"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// minimal is the smallest valid scenario with its [cluster] table last, so that a test
// can add a key to it (mechtest.Minimal ends with a stream).
const minimal = `name = "min"
duration = "10s"
[table.fields.id]
gen = "sequence"
[keyspace]
shards = 4
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 10
cost = "1ms"
[cluster]
nodes = 2
`

// TestWakeupCostKeys: [cluster] wakeup_cost turns into the event loop's setting, 0 or
// absent leaves it off, and each bad value is reported at its line and key
// (docs/scenario.md, "Keys of the mechanisms").
func TestWakeupCostKeys(t *testing.T) {
	sc, err := scenarios.LoadBytes("x.toml", []byte(minimal+"wakeup_cost = \"40us\"\n"), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sc.Variants[0].Spec.Mechanisms, []sim.Setting{eventloop.WakeUp{Cost: 40 * sim.Microsecond}}; !reflect.DeepEqual(got, want) {
		t.Errorf("settings %#v, want %#v", got, want)
	}
	for _, extra := range []string{"", "wakeup_cost = \"0s\"\n"} {
		sc, err = scenarios.LoadBytes("x.toml", []byte(minimal+extra), scenarios.Options{})
		if err != nil || len(sc.Variants[0].Spec.Mechanisms) != 0 {
			t.Errorf("%q: settings %#v (%v), want none", extra, sc.Variants[0].Spec.Mechanisms, err)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{`wakeup_cost = "-1us"`, `x.toml:15: cluster.wakeup_cost: must not be negative (got "-1us")`},
		{`wakeup_cost = "2s"`, `x.toml:15: cluster.wakeup_cost: must be at most 1s (got "2s"): a wake-up costs micro- to milliseconds of CPU`},
		{`wakeup_cost = 40`, `x.toml:15: cluster.wakeup_cost: must be a duration string such as "1h" (got integer 40)`},
		{`wakeup_cost = "soon"`, `x.toml:15: cluster.wakeup_cost: `},
		{`wakeup_cots = "40us"`, `x.toml:15: cluster.wakeup_cots: unknown key; did you mean "wakeup_cost"?`},
	} {
		_, err := scenarios.LoadBytes("x.toml", []byte(minimal+c.extra+"\n"), scenarios.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q in it", c.extra, err, c.want)
		}
	}
}
