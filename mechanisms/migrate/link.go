package migrate

import (
	"fmt"
	"strings"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

func init() {
	scenario.RegisterVariantLink(scenario.VariantLink{Rank: rank, Needs: targets, Link: link})
}

// targets returns the variants a variant migrates to (its [[actions]] entries'
// migrate.to; its own actions, else the base scenario's), which the loader resolves even
// when not selected: a migration builds the layout of the variant it names.
func targets(base, own map[string]any) []string {
	acts, ok := own["actions"]
	if !ok {
		acts = base["actions"]
	}
	var out []string
	for _, a := range tables(acts) {
		m, _ := a["migrate"].(map[string]any)
		if to, _ := m["to"].(string); to != "" {
			out = append(out, to)
		}
	}
	return out
}

// tables returns the tables of an array of tables, written either way: as [[actions]]
// sections ([]map[string]any) or inline, actions = [ { ... } ] ([]any).
func tables(v any) []map[string]any {
	switch x := v.(type) {
	case []map[string]any:
		return x
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			if t, ok := e.(map[string]any); ok {
				out = append(out, t)
			}
		}
		return out
	}
	return nil
}

// link gives variant s, if it migrates, the resolved variant it migrates to (Link), and
// raises its MaxShards by the target's shards, which the run adds; a tenant's migration
// moves to shards of its own, counted already, and links no variant.
func link(s *scenario.Resolved, self string, byName map[string]*scenario.Resolved, have []string) (bool, *scenario.FieldError) {
	m := s.Migration
	if m == nil {
		return false, nil
	}
	if m.Tenant != nil {
		return true, nil
	}
	if p, ok := Link(s, self, byName[m.To], have); !ok {
		return false, &p
	}
	s.MaxShards = max(s.Shards, s.MaxShards) + m.Target.Shards
	return true, nil
}

// Link checks that the variant s's migration moves to, target (nil: no variant of that
// name; have lists those there are), fits s, the one that migrates (self is its name), and
// links it (MigrationSpec.Target); it returns the problem, if any, with the dotted key
// under the migration's, or the zero FieldError. The loader calls it once every variant is
// resolved.
func Link(s *scenario.Resolved, self string, target *scenario.Resolved, have []string) (scenario.FieldError, bool) {
	m := s.Migration
	key := m.Key + ".to"
	switch {
	case m.To == self:
		return scenario.FieldError{Key: key, Msg: fmt.Sprintf("names the variant that migrates (%q): name another variant, whose layout the table moves to", self)}, false
	case target == nil:
		return scenario.FieldError{Key: key, Msg: fmt.Sprintf("no such variant %q (have %s)", m.To, strings.Join(have, ", "))}, false
	case len(target.Nodes) != len(s.Nodes) || !equalNodes(target.Nodes, s.Nodes):
		return scenario.FieldError{Key: key, Msg: fmt.Sprintf("variant %q runs on another cluster (%d nodes); a migration keeps the nodes: give both variants the same [cluster]", m.To, len(target.Nodes))}, false
	case strings.Join(target.FieldNames, ",") != strings.Join(s.FieldNames, ","):
		return scenario.FieldError{Key: key, Msg: fmt.Sprintf("variant %q has another table (fields %s, not %s); a migration keeps the rows", m.To, strings.Join(target.FieldNames, ", "), strings.Join(s.FieldNames, ", "))}, false
	case !sameStreams(target.Streams, s.Streams):
		return scenario.FieldError{Key: key, Msg: fmt.Sprintf("variant %q has other streams (names and operations differ); a migration keeps the traffic", m.To)}, false
	}
	m.Target = target
	return scenario.FieldError{}, true
}

func equalNodes(a, b []sim.Node) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameStreams reports whether two variants have the same streams: names and operations,
// in the same order.
func sameStreams(a, b []scenario.StreamSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Op != b[i].Op {
			return false
		}
	}
	return true
}
