package operator_test

import (
	"slices"
	"strings"
	"testing"

	_ "github.com/shardsim/shardsim/mechanisms/cache" // the cache's action setting, after the operator's
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	_ "github.com/shardsim/shardsim/mechanisms/migrate" // migrate, after the cache's
	"github.com/shardsim/shardsim/mechanisms/operator"
	_ "github.com/shardsim/shardsim/mechanisms/rebalance" // add_nodes and its rebalance, last
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// at starts an action at 1s.
const at = "[[actions]]\nat = \"1s\"\n"

// TestKeys: an action's node with cores or queue_limit and stream with limit, declared
// here, resolve in time order (ties in the order written) into the operator's Actions,
// each with its timeline text, which follows the node's settings from action to action; a
// client limit is a client's (applied a network delay later); an action after the run's
// end is checked and dropped.
func TestKeys(t *testing.T) {
	s, probs := mechtest.Resolve(t, "[[actions]]\nat = \"3s\"\nnode = 1\ncores = 8\nnote = \"bigger box\"\n"+
		"[[actions]]\nat = \"2s\"\nnode = 1\ncores = 4\n"+
		"[[actions]]\nat = \"2s\"\nnode = 0\nqueue_limit = 1500\n"+
		"[[actions]]\nat = \"5s\"\nstream = \"w\"\nlimit = { rate = 9000.0, overflow = \"queue\" }\n"+
		"[[actions]]\nat = \"6s\"\nstream = \"w\"\nlimit = \"none\"\n"+
		"[[actions]]\nat = \"20s\"\nnode = 1\ncores = 2\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	var texts, settings []string
	for _, a := range s.Actions {
		texts, settings = append(texts, a.Text), append(settings, a.Setting)
	}
	wantTexts := []string{"node 1: 1 → 4 cores", "node 0: queue limit unbounded → 1,500", "node 1: 4 → 8 cores (bigger box)", "w: limit 9,000/s, overflow queued", "w: limit lifted"}
	if !slices.Equal(texts, wantTexts) || !slices.Equal(settings, []string{"cores", "queue_limit", "cores", "limit", "limit"}) {
		t.Errorf("actions %q of settings %q, want %q of cores, queue_limit, cores, limit, limit", texts, settings, wantTexts)
	}
	as := operator.New(s.Actions)
	want := operator.Actions{
		{At: 2 * sim.Second, Change: operator.Cores, Node: 1, Cores: 4, Text: wantTexts[0]},
		{At: 2 * sim.Second, Change: operator.QueueLimit, Node: 0, QueueLimit: 1500, Text: wantTexts[1]},
		{At: 3 * sim.Second, Change: operator.Cores, Node: 1, Cores: 8, Text: wantTexts[2]},
		{At: 5 * sim.Second, Change: operator.ClientLimit, Limit: &sim.Limit{Rate: 9000, Burst: 1, Queue: true}, Client: true, Text: wantTexts[3]},
		{At: 6 * sim.Second, Change: operator.ClientLimit, Client: true, Text: wantTexts[4]},
	}
	if len(as) != len(want) {
		t.Fatalf("actions %+v, want %+v", as, want)
	}
	for i := range want {
		a, w := as[i], want[i]
		if (a.Limit == nil) != (w.Limit == nil) || (a.Limit != nil && (*a.Limit != *w.Limit || a.Limit == s.Actions[i].Value.(operator.Action).Limit)) {
			t.Errorf("action %d: limit %+v, want a copy of %+v", i, a.Limit, w.Limit)
		}
		a.Limit, w.Limit = nil, nil
		if a != w {
			t.Errorf("action %d: %+v, want %+v", i, a, w)
		}
	}
	if as := operator.New(nil); as != nil {
		t.Errorf("no actions: %+v, want nil", as)
	}
}

// TestProblems: each bad value of the operator's keys is reported at its key, every problem
// in order: the node and the stream (what a setting applies to) before the setting's own
// checks, those before another mechanism's refusal of its keys (rebalance); a misspelt key
// with a suggestion.
func TestProblems(t *testing.T) {
	for _, c := range []struct {
		extra string
		want  []string
	}{
		{at + "cores = 2\n", []string{"actions[0].node: required with cores: the node's id, 0 to nodes-1"}},
		{at + "queue_limit = 2\n", []string{"actions[0].node: required with queue_limit: the node's id, 0 to nodes-1"}},
		{at + "node = 7\ncores = 2\n", []string{"actions[0].node: no such node: ids run from 0 to 1 (got 7)"}},
		{at + "node = -1\nqueue_limit = 2\n", []string{"actions[0].node: no such node: ids run from 0 to 1 (got -1)"}},
		{at + "node = 0\ncores = 0\n", []string{"actions[0].cores: must be at least 1 (got 0)"}},
		{at + "node = 0\nqueue_limit = -1\n", []string{"actions[0].queue_limit: must not be negative (got -1); 0 is unbounded"}},
		{at + "limit = \"none\"\n", []string{"actions[0].stream: required with limit: the name of the stream whose client is limited"}},
		{at + "stream = \"x\"\nlimit = \"none\"\n", []string{`actions[0].stream: no such stream "x" (have "w")`}},
		{at + "stream = \"w\"\nlimit = { burst = 0 }\n", []string{"actions[0].limit.rate: required: the requests per second the client lets through, e.g. 1000", "actions[0].limit.burst: must be between 1 and 1000000000 tokens (got 0)"}},
		{at + "node = 1\nstream = \"w\"\nlimit = \"none\"\n", []string{"actions[0].node: applies only to cores and queue_limit actions"}},
		{at + "node = 1\nstream = \"w\"\ncores = 2\n", []string{"actions[0].stream: applies only to limit actions"}},
		// node and stream come before the setting's own checks, which come before the
		// rebalance's refusal of its table.
		{at + "node = 9\nstream = \"w\"\ncores = 0\nrebalance = { rate = 1.0 }\n", []string{
			"actions[0].node: no such node: ids run from 0 to 1 (got 9)", "actions[0].stream: applies only to limit actions",
			"actions[0].cores: must be at least 1 (got 0)", "actions[0].rebalance: applies only to add_nodes actions"}},
		// The node is refused with any other mechanism's setting, before its checks.
		{at + "node = 0\nmigrate = { to = \"b\" }\n", []string{"actions[0].node: applies only to cores and queue_limit actions", "actions[0].migrate.backfill_rate: required: the rows per second the backfill copies"}},
		{at + "node = 0\nstream = \"w\"\nadd_nodes = 1\n", []string{"actions[0].node: applies only to cores and queue_limit actions", "actions[0].stream: applies only to limit actions",
			"actions[0].rebalance: required with add_nodes: rebalance = { rate = ROWS_PER_S }, the rows per second a shard's copy moves"}},
		{at + "node = 0\ncores = 2\nqueue_limit = 3\n", []string{"actions[0].queue_limit: an action changes one setting, and this one already sets cores: use one [[actions]] entry for each"}},
		{at + "cache = true\nstream = \"w\"\nlimit = \"none\"\n", []string{"actions[0].cache: an action changes one setting, and this one already sets limit: use one [[actions]] entry for each", noCache}},
		{at + "add_nodes = 1\ncache = true\n", []string{"actions[0].add_nodes: an action changes one setting, and this one already sets cache: use one [[actions]] entry for each", noCache}},
		{at + "nod = 0\ncores = 2\n", []string{`actions[0].nod: unknown key; did you mean "node"?`, "actions[0].node: required with cores: the node's id, 0 to nodes-1"}},
		{at + "node = 0\ncors = 2\n", []string{`actions[0].cors: unknown key; did you mean "cores"?`, "actions[0]: says nothing to do: " + hint}},
		{at + "stream = \"w\"\nlimit = \"off\"\n", []string{`actions[0].limit: must be a limit table { rate = N, burst = N, overflow = "reject" | "queue" }, or "none" to lift the limit (got "off")`}},
	} {
		_, probs := mechtest.Resolve(t, c.extra)
		if !slices.Equal(probs, c.want) {
			t.Errorf("%q: problems\n%q\nwant\n%q", c.extra, probs, c.want)
		}
	}
}

// noCache is the cache's refusal of an action's cache without a [cache] table.
const noCache = "actions[0].cache: needs a [cache] table to turn on or off (with enabled = false it starts off)"

// hint is what an action that says nothing to do is told: the operator's settings first,
// then the cache's, the migration's and the rebalance's, in their ranks' order, not the
// order their packages are initialized in (cache, migrate, operator, rebalance here).
const hint = `give node with cores or queue_limit, stream with limit, cache = true | false, migrate = { to = "VARIANT", ... }, or add_nodes = N with rebalance = { rate = ROWS_PER_S }`

// TestHints: an action that changes nothing is told every setting it may change, in the
// order of their ranks (testdata/bad/action-nothing-to-do.err holds the CLI's).
func TestHints(t *testing.T) {
	_, probs := mechtest.Resolve(t, at+"note = \"scale up\"\n")
	if want := []string{"actions[0]: says nothing to do: " + hint}; !slices.Equal(probs, want) {
		t.Errorf("problems\n%q\nwant\n%q", probs, want)
	}
}

// TestDecl: the operator's keys are declared in [[actions]], where docs/scenario.md's
// generated table lists them.
func TestDecl(t *testing.T) {
	var got []string
	for _, k := range scenario.MechanismKeys {
		if k.Table == "[[actions]]" && strings.Contains(k.Meaning, "(#actions)") {
			got = append(got, k.Name)
		}
	}
	for _, k := range []string{"node", "cores", "queue_limit", "stream", "limit"} {
		if !slices.Contains(got, k) {
			t.Errorf("[[actions]] keys %q: want %q among them", got, k)
		}
	}
}
