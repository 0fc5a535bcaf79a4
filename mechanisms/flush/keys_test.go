package flush_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/flush"
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

// TestCommitFlushKeys: [cluster] commit_flush turns into the commit flush's setting, and
// each bad value is reported at its line and key (docs/scenario.md, "Keys of the
// mechanisms").
func TestCommitFlushKeys(t *testing.T) {
	sc, err := scenarios.LoadBytes("x.toml", []byte(minimal+"commit_flush = \"2ms\"\n"), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sc.Variants[0].Spec.Mechanisms, []sim.Setting{flush.CommitFlush{Flush: 2 * sim.Millisecond}}; !reflect.DeepEqual(got, want) {
		t.Errorf("settings %#v, want %#v", got, want)
	}
	sc, err = scenarios.LoadBytes("x.toml", []byte(minimal), scenarios.Options{})
	if err != nil || len(sc.Variants[0].Spec.Mechanisms) != 0 {
		t.Errorf("without commit_flush: settings %#v (%v), want none", sc.Variants[0].Spec.Mechanisms, err)
	}
	for _, c := range []struct{ extra, want string }{
		{`commit_flush = "0s"`, `x.toml:15: cluster.commit_flush: must be positive (got "0s")`},
		{`commit_flush = "2s"`, `x.toml:15: cluster.commit_flush: must be at most 1s (got "2s"): a log flush takes micro- to milliseconds`},
		{`commit_flush = 2`, `x.toml:15: cluster.commit_flush: must be a duration string such as "1h" (got integer 2)`},
		{`commit_flush = "fast"`, `x.toml:15: cluster.commit_flush: `},
		{`commit_flus = "2ms"`, `x.toml:15: cluster.commit_flus: unknown key; did you mean "commit_flush"?`},
	} {
		_, err := scenarios.LoadBytes("x.toml", []byte(minimal+c.extra+"\n"), scenarios.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q in it", c.extra, err, c.want)
		}
	}
}
