package replicas_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	_ "github.com/shardsim/shardsim/mechanisms/replicas"
	"github.com/shardsim/shardsim/sim"
)

// cluster is mechtest's Minimal with lines added to its [cluster].
func cluster(lines string) string {
	return strings.Replace(mechtest.Minimal, "[cluster]\n", "[cluster]\n"+lines, 1)
}

// TestKeys: [cluster] replicas, read_from and apply_cost, declared here, resolve into
// Resolved.Replicas, ReadAny and ApplyCost; each bad value is reported at its dotted key,
// a misspelt key with a suggestion, and before the table's problems, as [cluster]'s are.
func TestKeys(t *testing.T) {
	s, probs := mechtest.ResolveFile(t, cluster("replicas = 1\nread_from = \"any\"\napply_cost = \"0.2ms\"\n"))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if s.Replicas != 1 || !s.ReadAny || s.ApplyCost != 200*sim.Microsecond {
		t.Errorf("replicas %d, read any %v, apply cost %v; want 1, true, 0.2ms", s.Replicas, s.ReadAny, s.ApplyCost)
	}
	s, probs = mechtest.Resolve(t, "")
	if len(probs) > 0 || s.Replicas != 0 || s.ReadAny || s.ApplyCost != 0 {
		t.Errorf("none given: replicas %d, read any %v, apply cost %v, problems %q; want none", s.Replicas, s.ReadAny, s.ApplyCost, probs)
	}
	for _, c := range []struct {
		lines string
		want  []string
	}{
		{"replicas = -1\n", []string{"cluster.replicas: must not be negative (got -1)"}},
		{"replicas = 2\n", []string{"cluster.replicas: must be at most nodes - 1 = 1: each follower of a shard lives on another node (got 2)"}},
		{"read_from = \"all\"\n", []string{`cluster.read_from: must be one of "leader", "any" (got "all")`}},
		{"apply_cost = \"0s\"\n", []string{`cluster.apply_cost: must be positive (got "0s")`}},
		{"apply_cost = \"2h\"\n", []string{`cluster.apply_cost: must be at most 1h0m0s (got "2h")`}},
		{"replica = 1\n", []string{`cluster.replica: unknown key; did you mean "replicas"?`}},
	} {
		_, probs := mechtest.ResolveFile(t, cluster(c.lines))
		if !slices.Equal(probs, c.want) {
			t.Errorf("%q: problems %q, want %q", c.lines, probs, c.want)
		}
	}
	_, probs = mechtest.ResolveFile(t, cluster("replicas = -1\n")+"[table]\nhistory = \"-1s\"\n")
	if want := []string{"cluster.replicas: must not be negative (got -1)", `table.history: must not be negative (got "-1s")`}; !slices.Equal(probs, want) {
		t.Errorf("with the table's problem: problems %q, want %q", probs, want)
	}
}

// TestEffective: without followers, read_from and apply_cost change nothing in the model,
// so the variant's effective form (scenario.Resolved.Effective, which tells variants that
// run the same model) clears them, as this folder registers; with followers it keeps them.
func TestEffective(t *testing.T) {
	for _, c := range []struct {
		lines string
		kept  bool
	}{
		{"read_from = \"any\"\napply_cost = \"0.2ms\"\n", false},
		{"replicas = 1\nread_from = \"any\"\napply_cost = \"0.2ms\"\n", true},
	} {
		s, probs := mechtest.ResolveFile(t, cluster(c.lines))
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		if !s.ReadAny || s.ApplyCost != 200*sim.Microsecond {
			t.Fatalf("%q: read any %v, apply cost %v; want the keys' values resolved", c.lines, s.ReadAny, s.ApplyCost)
		}
		e := s.Effective()
		if got := e.ReadAny && e.ApplyCost == 200*sim.Microsecond; got != c.kept || (!c.kept && (e.ReadAny || e.ApplyCost != 0)) {
			t.Errorf("%q: effective read any %v, apply cost %v; want them kept: %v", c.lines, e.ReadAny, e.ApplyCost, c.kept)
		}
		if !s.ReadAny || s.ApplyCost == 0 {
			t.Errorf("%q: Effective changed the variant itself", c.lines)
		}
	}
}
