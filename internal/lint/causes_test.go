package lint

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// countTypes are sim's per-stream, per-window and per-shard results, whose counters the
// core counts as a request's attempt ends and adds up from the parts of a split run.
var countTypes = []string{"StreamResult", "WindowLatency", "ShardResult"}

// countsLeft are the fields of countTypes that hold a mechanism's word and stay, each with
// why (none is a failure count); none does since the cache's and the row locks' figures
// went to Result.Reports.
var countsLeft = map[string]string{}

// registeredCauses are the names of the failure causes that mechanisms register
// (sim.RegisterCause), read from their calls, each with a folder that registers it.
func registeredCauses(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for path, p := range packages(t) {
		if !strings.HasPrefix(path, "mechanisms/") {
			continue
		}
		for _, f := range p.files {
			ast.Inspect(f, func(x ast.Node) bool {
				call, ok := x.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "RegisterCause" {
					return true
				}
				if pk, ok := sel.X.(*ast.Ident); !ok || pk.Name != "sim" || len(call.Args) != 3 {
					return true
				}
				lit, ok := call.Args[1].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s: sim.RegisterCause's name is no string literal", p.fset.Position(call.Pos()))
					return true
				}
				name, _ := strconv.Unquote(lit.Value)
				out[name] = path
				return true
			})
		}
	}
	return out
}

// TestFailureCausesRegistered holds the core to counting only its own failure causes by
// name (a full queue's Rejected, the client's TimedOut and Limited): a mechanism that
// fails requests for a cause of its own registers it (sim.RegisterCause) and the results
// count it by cause (sim.CauseCounts, docs/architecture.md, "Inside the engine"). No field
// of sim's per-stream, per-window and per-shard results holds a mechanism's word (but
// countsLeft) or is named for a registered cause.
func TestFailureCausesRegistered(t *testing.T) {
	causes := registeredCauses(t)
	if len(causes) < 2 {
		t.Errorf("found the failure causes %v registered under mechanisms/; want a partition limit's and a row lock's at least", causes)
	}
	words := coreWords(t)
	found := map[string]bool{}
	used := map[string]bool{}
	for _, f := range packages(t)["sim"].files {
		ast.Inspect(f, func(x ast.Node) bool {
			ts, ok := x.(*ast.TypeSpec)
			if !ok || !slices.Contains(countTypes, ts.Name.Name) {
				return true
			}
			found[ts.Name.Name] = true
			for _, fl := range ts.Type.(*ast.StructType).Fields.List {
				for _, n := range fl.Names {
					for name, m := range causes {
						if strings.EqualFold(n.Name, strings.ReplaceAll(name, "_", "")) {
							t.Errorf("sim.%s's field %s counts the failure cause %q that %s registers: count it by cause (sim.CauseCounts)", ts.Name.Name, n.Name, name, m)
						}
					}
					if countsLeft[n.Name] != "" {
						used[n.Name] = true
						continue
					}
					for _, w := range words {
						if holdsWord(n.Name, w) {
							t.Errorf("sim.%s's field %s names %s, a mechanism's word: a failure cause is registered and counted by cause (sim.CauseCounts)", ts.Name.Name, n.Name, w)
							break
						}
					}
				}
			}
			return false
		})
	}
	for _, n := range countTypes {
		if !found[n] {
			t.Errorf("sim has no type %s", n)
		}
	}
	for n := range countsLeft {
		if !used[n] {
			t.Errorf("countsLeft lets %s stay, which no result type of sim has: take it off", n)
		}
	}
}

// eventKindsAllowed are the kinds of sim.Event that hold a mechanism's word and stay, each
// with why.
var eventKindsAllowed = map[string]string{
	"EventAction": "a line the run's timeline notes (Core.Note), the core's: what the operator's actions use",
	"EventSplit":  "the shards growing by one that takes part of another's keys: the shards' lineage the core keeps (ShardResult.Parent), which the figures read",
}

// TestEventNamesNoMechanism holds sim.Event, a change during a run, to the core's
// vocabulary: what changed (an action noted, the shards grown by a split, a shard moved),
// never a mechanism's reasons for it, which the mechanism that recorded the event words
// (Event.Text) and codes in its own terms (Event.Why, as mechanisms/split's Cause). No
// field of Event, no type of one, and no EventKind constant but eventKindsAllowed holds a
// mechanism's word.
func TestEventNamesNoMechanism(t *testing.T) {
	words := coreWords(t)
	held := func(n string) string {
		for _, w := range words {
			if holdsWord(n, w) {
				return w
			}
		}
		return ""
	}
	found, used := false, map[string]bool{}
	for _, f := range packages(t)["sim"].files {
		ast.Inspect(f, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.TypeSpec:
				if x.Name.Name != "Event" {
					return true
				}
				found = true
				for _, fl := range x.Type.(*ast.StructType).Fields.List {
					var names []string
					for _, n := range fl.Names {
						names = append(names, n.Name)
					}
					for _, n := range append(names, typeNames(fl.Type)...) {
						if w := held(n); w != "" {
							t.Errorf("sim.Event's field %s names %s, a mechanism's word: the mechanism words why (Text) and codes it in its own terms (Why)", strings.Join(names, " "), n)
						}
					}
				}
				return false
			case *ast.GenDecl:
				// A constant of an iota block without a type of its own has the type of
				// the one before it.
				kind := false
				for _, s := range x.Specs {
					v, ok := s.(*ast.ValueSpec)
					if !ok || x.Tok != token.CONST {
						break
					}
					if v.Type != nil {
						id, ok := v.Type.(*ast.Ident)
						kind = ok && id.Name == "EventKind"
					}
					for _, n := range v.Names {
						if !kind {
							continue
						}
						if eventKindsAllowed[n.Name] != "" {
							used[n.Name] = true
						} else if w := held(n.Name); w != "" {
							t.Errorf("sim's event kind %s names %s, a mechanism's word", n.Name, w)
						}
					}
				}
			}
			return true
		})
	}
	if !found {
		t.Fatal("sim has no type Event")
	}
	for n := range eventKindsAllowed {
		if !used[n] {
			t.Errorf("eventKindsAllowed lets %s stay, which is no event kind of sim: take it off", n)
		}
	}
}
