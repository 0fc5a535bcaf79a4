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
// why: none is a failure count.
var countsLeft = map[string]string{
	"CacheHits":   "the cache's figures, not a failure count",
	"CacheStale":  "the cache's figures, not a failure count",
	"CacheJoined": "the cache's figures, not a failure count",
	"LockWaits":   "the row locks' wait figures, not a failure count",
	"LockWaited":  "the row locks' wait figures, not a failure count",
	"LockWaitSum": "the row locks' wait figures, not a failure count",
	"LockWaitMax": "the row locks' wait figures, not a failure count",
	"LockWait":    "the row locks' wait figures, not a failure count",
	"HotLocks":    "the row locks' wait figures, not a failure count",
	"LockHolds":   "the row locks' wait figures, not a failure count",
	"LockHoldSum": "the row locks' wait figures, not a failure count",
	"Claim":       "a job queue's claim, not a failure count",
}

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
