package flush_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/flush"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// cluster is mechtest.Minimal with lines added to its [cluster] table.
func cluster(lines string) string {
	return strings.Replace(mechtest.Minimal, "nodes = 2\n", "nodes = 2\n"+lines, 1)
}

// TestCommitFlushKeys: [cluster] commit_flush turns into the commit flush's setting, and
// each bad value is reported at its key, and by the loader at its line (docs/scenario.md,
// "Keys of the mechanisms").
func TestCommitFlushKeys(t *testing.T) {
	s, probs := mechtest.ResolveFile(t, cluster("commit_flush = \"2ms\"\n"))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if want := []sim.Setting{flush.CommitFlush{Flush: 2 * sim.Millisecond}}; !reflect.DeepEqual(s.Mechanisms, want) {
		t.Errorf("settings %#v, want %#v", s.Mechanisms, want)
	}
	if s, probs := mechtest.ResolveFile(t, cluster("")); len(probs) > 0 || len(s.Mechanisms) != 0 {
		t.Errorf("without commit_flush: settings %#v (%q), want none", s.Mechanisms, probs)
	}
	for _, c := range []struct{ extra, want string }{
		{`commit_flush = "0s"`, `cluster.commit_flush: must be positive (got "0s")`},
		{`commit_flush = "2s"`, `cluster.commit_flush: must be at most 1s (got "2s"): a log flush takes micro- to milliseconds`},
		{`commit_flush = 2`, `cluster.commit_flush: must be a duration string such as "1h" (got integer 2)`},
		{`commit_flush = "fast"`, `cluster.commit_flush: not a duration "fast" (use Go syntax plus d for days: "250us", "15m", "2h", "30d")`},
		{`commit_flus = "2ms"`, `cluster.commit_flus: unknown key; did you mean "commit_flush"?`},
	} {
		if _, probs := mechtest.ResolveFile(t, cluster(c.extra+"\n")); !slices.Contains(probs, c.want) {
			t.Errorf("%s: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
	const want = `x.toml:5: cluster.commit_flush: must be positive (got "0s")`
	if _, err := scenarios.LoadBytes("x.toml", []byte(cluster("commit_flush = \"0s\"\n")), scenarios.Options{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q in it", err, want)
	}
}
