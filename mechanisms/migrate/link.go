package migrate

import (
	"fmt"
	"strings"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

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
