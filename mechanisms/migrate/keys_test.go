package migrate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/mechanisms/migrate"
	_ "github.com/shardsim/shardsim/mechanisms/split" // [keyspace.split], which a migration refuses
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// minimal is mechtest's Minimal with a uniform id of 100 values, a field a tenant may be
// named by.
var minimal = strings.Replace(mechtest.Minimal, "gen = \"sequence\"\n", "gen = \"uniform\"\nn = 100\n", 1)

// resolve resolves minimal with extra appended.
func resolve(t *testing.T, extra string) (*scenario.Resolved, []string) {
	t.Helper()
	return mechtest.ResolveFile(t, minimal+extra)
}

// TestKeys: an action's migrate table, declared here, resolves into scenario.MigrationSpec
// and the action's kind; a migrate action after the run's end is checked and dropped, with
// the migration it would start.
func TestKeys(t *testing.T) {
	s, probs := resolve(t, "[[actions]]\nat = \"2s\"\nmigrate = { to = \"b\", backfill_rate = 500.0, cutover = \"5s\", read_cost = \"10us\", write_cost = \"20us\", max_cpu = 0.5, verify = \"1s\", outbox = \"2ms\" }\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := scenario.MigrationSpec{Key: "actions[0].migrate", At: 2 * sim.Second, To: "b", Rate: 500, Cutover: 5 * sim.Second,
		ReadCost: 10 * sim.Microsecond, WriteCost: 20 * sim.Microsecond, MaxCPU: 0.5, Verify: sim.Second, Outbox: 2 * sim.Millisecond}
	if s.Migration == nil || *s.Migration != want {
		t.Errorf("migration %+v, want %+v", s.Migration, want)
	}
	if len(s.Actions) != 1 || s.Actions[0].Setting != "migrate" {
		t.Errorf("actions %+v, want one migrate", s.Actions)
	}
	s, probs = resolve(t, "[[actions]]\nat = \"2s\"\nmigrate = { tenant = { field = \"id\", value = 7 }, backfill_rate = 500.0, nodes = [1] }\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if tn := s.Migration.Tenant; tn == nil || tn.Field != 0 || tn.Value != 7 || tn.Text != "id=7" || tn.Shards != 1 || !slices.Equal(tn.Nodes, []int{1}) || s.MaxShards != 5 {
		t.Errorf("tenant %+v, max shards %d; want id=7 on one shard on node 1, 5 shards at most", tn, s.MaxShards)
	}
	s, probs = resolve(t, "[[actions]]\nat = \"20s\"\nmigrate = { to = \"b\", backfill_rate = 500.0 }\n")
	if len(probs) > 0 || s.Migration != nil || len(s.Actions) != 0 {
		t.Errorf("an action after the end: migration %+v, actions %+v, problems %q; want none", s.Migration, s.Actions, probs)
	}
	_, probs = resolve(t, "[[actions]]\nat = \"20s\"\nmigrate = { to = \"b\" }\n")
	if want := []string{"actions[0].migrate.backfill_rate: required: the rows per second the backfill copies"}; !slices.Equal(probs, want) {
		t.Errorf("a bad action after the end: problems %q, want %q", probs, want)
	}
}

// TestProblems: each bad migrate table is reported at its dotted key, every problem in
// order, a misspelt key with a suggestion; what a migration is not combined with yet is
// refused at its migrate.
func TestProblems(t *testing.T) {
	const at = "[[actions]]\nat = \"1s\"\n"
	for _, c := range []struct {
		extra string
		want  []string
	}{
		{at + "migrate = { backfill_rate = 10.0 }\n", []string{"actions[0].migrate.to: required: the name of the variant whose key design and shards the table moves to (or tenant = { field, value } to move one tenant alone)"}},
		{at + "migrate = { to = \"b\" }\n", []string{"actions[0].migrate.backfill_rate: required: the rows per second the backfill copies"}},
		{at + "migrate = { to = \"b\", reads = \"both\" }\n", []string{"actions[0].migrate.cutover: required without a backfill_rate: a clock time, a duration since the start, or \"never\" (there is no backfill to wait for)"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0, reads = \"new\" }\n", []string{"actions[0].migrate.reads: must be \"old\" (reads stay on the old layout until the cutover) or \"both\" (writes go to the new layout, reads visit both) (got \"new\")"}},
		{"[[actions]]\nat = \"5s\"\nmigrate = { to = \"b\", backfill_rate = 10.0, cutover = \"2s\" }\n", []string{"actions[0].migrate.cutover: must come after the migration starts at 00:00:05 (got \"2s\")"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0, max_cpu = 2.0 }\n", []string{"actions[0].migrate.max_cpu: must be a fraction of a node's cores above 0 and at most 1 (got 2)"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0, cutover = \"never\", verify = \"1s\" }\n", []string{"actions[0].migrate.verify: applies after a cutover, and cutover = \"never\" has none"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0, tenant = { field = \"id\" } }\n", []string{"actions[0].migrate.tenant: moves one tenant to shards of its own, and to moves the whole table: give one of them"}},
		{at + "migrate = { backfill_rate = 10.0, tenant = { field = \"nope\" } }\n", []string{"actions[0].migrate.tenant.field: no such field \"nope\" in table.fields"}},
		{at + "migrate = { backfill_rate = 10.0, tenant = { field = \"id\" } }\n", []string{"actions[0].migrate.tenant.value: required: the tenant's value of field \"id\" (an integer from 0 to 99)"}},
		{at + "migrate = { backfill_rate = 10.0, tenant = { field = \"id\", value = 100 } }\n", []string{"actions[0].migrate.tenant.value: 100 is not a value of field \"id\" (an integer from 0 to 99)"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0, shards = 2 }\n", []string{"actions[0].migrate.shards: applies only with tenant = { field, value }: the tenant's own shards"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0, nodes = [0] }\n", []string{"actions[0].migrate.nodes: applies only with tenant = { field, value }: the tenant's own shards"}},
		{at + "migrate = { backfill_rate = 10.0, shards = 2, tenant = { field = \"id\", value = 1 } }\n", []string{"actions[0].migrate.shards: must be 1 here: the key (id) is the tenant's field alone, so all of the tenant's rows are one partition on one of its 2 shards; give the key a part that varies within the tenant to spread it (got 2)"}},
		{at + "migrate = { backfill_rate = 10.0, nodes = [0, 5], tenant = { field = \"id\", value = 1 } }\n", []string{"actions[0].migrate.nodes: must name one node per shard of the tenant: 1 (got 2)", "actions[0].migrate.nodes[1]: no such node: ids run from 0 to 1 (got 5)"}},
		{at + "migrate = { backfill_rate = 10.0, reads = \"both\", verify = \"1s\", tenant = { field = \"id\", value = 1 } }\n", []string{"actions[0].migrate.reads: must be \"old\" when one tenant moves: its rows are copied, not left behind", "actions[0].migrate.verify: cannot be combined with tenant yet (the verification period's CPU is counted for whole tables)"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0 }\n[[actions]]\nat = \"2s\"\nmigrate = { to = \"b\", backfill_rate = 10.0 }\n", []string{"actions[1].migrate: a run holds one migration, and actions[0].migrate already starts one"}},
		{at + "migrate = { to = \"b\", backfill_rat = 10.0 }\n", []string{`actions[0].migrate.backfill_rat: unknown key; did you mean "backfill_rate"?`, "actions[0].migrate.backfill_rate: required: the rows per second the backfill copies"}},
		{at + "node = 0\ncores = 2\nmigrate = { to = \"b\", backfill_rate = 10.0 }\n", []string{"actions[0].migrate: an action changes one setting, and this one already sets cores: use one [[actions]] entry for each"}},
		{at + "migrate = { to = \"b\", backfill_rate = 10.0 }\n[keyspace.split]\nrows = 10\n", []string{"actions[0].migrate: cannot be combined with keyspace.split (automatic splits) yet"}},
	} {
		_, probs := resolve(t, c.extra)
		if !slices.Equal(probs, c.want) {
			t.Errorf("%q: problems %q, want %q", c.extra, probs, c.want)
		}
	}
	// The hints are those of the mechanisms the test binary imports, in their ranks' order:
	// testdata/bad/action-nothing-to-do.err holds the CLI's, mechanisms/operator's TestHints
	// the order.
	_, probs := resolve(t, at+"migrat = { to = \"b\" }\n")
	if len(probs) != 2 || probs[0] != `actions[0].migrat: unknown key; did you mean "migrate"?` || !strings.HasPrefix(probs[1], "actions[0]: says nothing to do: ") || !strings.Contains(probs[1], `migrate = { to = "VARIANT", ... }`) {
		t.Errorf("a misspelt migrate: problems %q, want the suggestion, then nothing to do with migrate's hint", probs)
	}
	src := strings.Replace(minimal, "cost = \"1ms\"\n", "cost = \"1ms\"\nlock = \"1ms\"\n", 1) + at + "migrate = { to = \"b\", backfill_rate = 10.0 }\n"
	if _, probs := mechtest.ResolveFile(t, src); !slices.Contains(probs, "actions[0].migrate: cannot be combined with row locks yet (streams[0].lock)") {
		t.Errorf("with row locks: problems %q, want the migration refused", probs)
	}
}

// TestText: the timeline's text for a migration that reads both layouts says there are no
// dual writes (writes go to the new layout) and says whether there is a backfill; one that
// reads the old layout says dual writes and backfill; one of a tenant says its shards.
func TestText(t *testing.T) {
	for _, tc := range []struct{ migrate, want string }{
		{`{ to = "b", backfill_rate = 500.0 }`, "migration started: dual writes and backfill to b"},
		{`{ to = "b", reads = "both", cutover = "5s" }`, "migration started: writes go to b, reads visit both layouts, no backfill"},
		{`{ to = "b", reads = "both", backfill_rate = 500.0 }`, "migration started: writes go to b, reads visit both layouts, backfill of the old rows"},
		{`{ tenant = { field = "id", value = 3 }, backfill_rate = 500.0 }`, "migration started: id=3 moves to a shard of its own (dual writes and backfill of its rows)"},
	} {
		r, probs := resolve(t, "[[actions]]\nat = \"2s\"\nnote = \"n\"\nmigrate = "+tc.migrate+"\n")
		if len(probs) > 0 {
			t.Fatalf("%s: %v", tc.migrate, probs)
		}
		if want := tc.want + " (n)"; len(r.Actions) != 1 || r.Actions[0].Text != want {
			t.Errorf("%s: actions %+v; want the text %q", tc.migrate, r.Actions, want)
		}
	}
}

// TestLink: the variant a migration moves to must be another, existing variant on the
// same cluster, with the same table and the same streams; Link reports the problem at the
// migration's to, and links a target that fits.
func TestLink(t *testing.T) {
	from, probs := resolve(t, "[[actions]]\nat = \"2s\"\nmigrate = { to = \"b\", backfill_rate = 500.0 }\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	target := func(old, new string) *scenario.Resolved {
		s, probs := mechtest.ResolveFile(t, strings.Replace(minimal, old, new, 1))
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		return s
	}
	have := []string{`"a"`, `"b"`}
	for _, c := range []struct {
		self   string
		target *scenario.Resolved
		want   string
	}{
		{"b", target("", ""), `actions[0].migrate.to: names the variant that migrates ("b"): name another variant, whose layout the table moves to`},
		{"a", nil, `actions[0].migrate.to: no such variant "b" (have "a", "b")`},
		{"a", target("nodes = 2", "nodes = 3"), `actions[0].migrate.to: variant "b" runs on another cluster (3 nodes); a migration keeps the nodes: give both variants the same [cluster]`},
		{"a", target("[table.fields.id]", "[table.fields.other]\ngen = \"uniform\"\nn = 10\n[table.fields.id]"), `actions[0].migrate.to: variant "b" has another table (fields id, other, not id); a migration keeps the rows`},
		{"a", target("name = \"w\"", "name = \"v\""), `actions[0].migrate.to: variant "b" has other streams (names and operations differ); a migration keeps the traffic`},
	} {
		p, ok := migrate.Link(from, c.self, c.target, have)
		if ok || p.Error() != c.want || from.Migration.Target != nil {
			t.Errorf("problem %q (ok %v, target %p), want %q", p.Error(), ok, from.Migration.Target, c.want)
		}
	}
	to := target("shards = 4", "shards = 8")
	if p, ok := migrate.Link(from, "a", to, have); !ok || p != (scenario.FieldError{}) || from.Migration.Target != to {
		t.Errorf("a fitting target: problem %q, ok %v, target %p; want it linked (%p)", p.Error(), ok, from.Migration.Target, to)
	}
}
