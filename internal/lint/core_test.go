package lint

import (
	"go/ast"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// notCore are sim's files that may name a mechanism: the component interface, the hooks
// and Core calls that mechanisms use, and the vocabulary of the model and the result,
// whose fields the figures read (docs/architecture.md, "Inside the engine"). Every other
// file of sim is the engine core: events, routing, queues, cores.
var notCore = map[string]bool{
	"component.go": true,
	"mechanism.go": true,
	"watch.go":     true,
	"result.go":    true,
	"model.go":     true,
	"mitigate.go":  true,
	"doc.go":       true, // the package's comment: no code
}

// notMechanisms are the folders under mechanisms/ that hold no mechanism.
var notMechanisms = map[string]string{
	"mechtest": "the transcripts' test harness",
}

// mechanismWords are the words, beside its folder's name, that name a mechanism: its
// thing in the singular, the names its parts and its doc go by.
var mechanismWords = map[string][]string{
	"eventloop": {"wakeup"},
	"index":     {"gsi"},
	"locks":     {"lock"},
	"migrate":   {"migrat", "backfill", "outbox", "cutover"},
	"operator":  {"action"},
	"queue":     {"claim", "job", "skiplocked"},
	"rebalance": {"rebalanc"},
	"replicas":  {"replica", "follower"},
}

// coreNames are the mechanisms' folder names that are the core's own words too, for which
// only the words of mechanismWords stand: a node's queue (reach, startQueued,
// Result.NodeMaxQueue) is the core's, where mechanisms/queue is a job queue's claims.
var coreNames = map[string]string{
	"queue": "a node's queue is the core's",
}

// coreAllowed are the core's identifiers that hold a mechanism's word and stay, each
// with why.
var coreAllowed = map[string]string{
	// The parallel engine's split run (parallel.go), the core's: a run split over the
	// cores by shard, not a shard's split.
	"split":      "the parallel engine's split run",
	"isSplit":    "the parallel engine's split run",
	"joinSplit":  "the parallel engine's split run",
	"runSplit":   "the parallel engine's split run",
	"setUpSplit": "the parallel engine's split run",
	// An index into an array, not a secondary index.
	"index":      "a stream's index among the model's streams",
	"shardIndex": "a shard id's index into the shard series",
	// sync.Mutex's method, the parallel engine's: no row lock.
	"Lock": "sync.Mutex's",
	// Result.Replicas, which the window sink hands on (sim.ShardWindow, exported): a
	// shard's CPU is spread over 1 + Replicas copies in its load.
	"Replicas": "Result.Replicas, as sim.ShardWindow hands it to a sink",
	// The slots' free lists (slots.go): a pool of slots, not the client's connection pool.
	// The profile that default.pgo holds names its take and put, which are on every
	// request's path.
	"pool": "the slots' free list, whose methods default.pgo's profile names",
}

// coreWords are the words that name a mechanism: each folder's name under mechanisms/
// (less notMechanisms, and less coreNames), and mechanismWords, all in lower case.
func coreWords(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, "mechanisms"))
	if err != nil {
		t.Fatal(err)
	}
	folders := map[string]bool{}
	var words []string
	for _, d := range ents {
		name := d.Name()
		if !d.IsDir() {
			continue
		}
		folders[name] = true
		if notMechanisms[name] != "" {
			continue
		}
		if coreNames[name] == "" {
			words = append(words, strings.ToLower(name))
		}
		for _, w := range mechanismWords[name] {
			words = append(words, strings.ToLower(w))
		}
	}
	for name := range mechanismWords {
		if !folders[name] || notMechanisms[name] != "" {
			t.Errorf("mechanismWords names %s, which is no mechanism's folder under mechanisms/", name)
		}
	}
	for name := range coreNames {
		if !folders[name] || notMechanisms[name] != "" {
			t.Errorf("coreNames names %s, which is no mechanism's folder under mechanisms/", name)
		}
		if len(mechanismWords[name]) == 0 {
			t.Errorf("mechanisms/%s's name is the core's own word, and no other word stands for it (mechanismWords)", name)
		}
	}
	for name := range notMechanisms {
		if !folders[name] {
			t.Errorf("notMechanisms names %s, which is no folder under mechanisms/", name)
		}
	}
	return words
}

// holdsWord reports whether identifier name holds word w (in lower case) from one of its
// words' starts on: backfillMark holds backfill, isSplit split and eventLoop eventloop, where
// clockEnd holds no lock.
func holdsWord(name, w string) bool {
	low := strings.ToLower(name)
	for i := range name {
		start := i == 0 || name[i-1] == '_' ||
			isUpper(name[i]) && (!isUpper(name[i-1]) || i+1 < len(name) && isLower(name[i+1]))
		if start && strings.HasPrefix(low[i:], w) {
			return true
		}
	}
	return false
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLower(b byte) bool { return 'a' <= b && b <= 'z' }

// TestCoreNamesNoMechanism holds the engine core to naming no mechanism: no identifier
// that the core's files declare or use (a type, a field, a constant, a function, a
// method) holds the word of one of the mechanisms under mechanisms/, but those of
// coreAllowed (docs/architecture.md, "Inside the engine"). A mark the core tests is named
// for what the core does with it or the Core call that makes it, never for the mechanism
// that happens to use it.
func TestCoreNamesNoMechanism(t *testing.T) {
	words := coreWords(t)
	p := packages(t)["sim"]
	if p == nil {
		t.Fatal("no package sim")
	}
	used := map[string]bool{}
	bad := map[string][]string{} // identifier: the files that name it
	for _, f := range p.files {
		file := filepath.Base(p.fset.Position(f.Package).Filename)
		if notCore[file] {
			continue
		}
		ast.Inspect(f, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok {
				return true
			}
			for _, w := range words {
				if !holdsWord(id.Name, w) {
					continue
				}
				if coreAllowed[id.Name] != "" {
					used[id.Name] = true
				} else if !slices.Contains(bad[id.Name], file) {
					bad[id.Name] = append(bad[id.Name], file)
				}
			}
			return true
		})
	}
	names := make([]string, 0, len(bad))
	for n := range bad {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Errorf("sim's core (%s) names %s, a mechanism's word: name it for what the core does with it, or move it to the component interface (component.go)", strings.Join(bad[n], ", "), n)
	}
	for n := range coreAllowed {
		if !used[n] {
			t.Errorf("coreAllowed lets %s stay, which the core no longer names: take it off", n)
		}
	}
}

// TestCoreWordsHit checks that the test above reads the core's words as it means to: a
// mechanism's folder name is a word, and a core word that is a folder's name is not.
func TestCoreWordsHit(t *testing.T) {
	words := coreWords(t)
	for _, w := range []string{"cache", "flush", "latch", "pool", "follower", "backfill", "claim"} {
		if !slices.Contains(words, w) {
			t.Errorf("%q is not among the mechanisms' words %v", w, words)
		}
	}
	if slices.Contains(words, "queue") {
		t.Errorf(`"queue", a node's queue, is among the mechanisms' words`)
	}
	for _, c := range []struct {
		name, word string
		holds      bool
	}{
		{"backfillMark", "backfill", true}, {"isSplit", "split", true}, {"eventLoop", "eventloop", true},
		{"LockTimedOut", "lock", true}, {"HTTPCache", "cache", true}, {"page_latch", "latch", true},
		{"clockEnd", "lock", false}, {"Unlock", "lock", false}, {"spool", "pool", false},
	} {
		if got := holdsWord(c.name, c.word); got != c.holds {
			t.Errorf("holdsWord(%q, %q) = %v, want %v", c.name, c.word, got, c.holds)
		}
	}
}

// resultTypes are sim's result types held to naming no mechanism: the run's, a stream's
// and a stream's window's.
var resultTypes = []string{"Result", "StreamResult", "WindowLatency"}

// resultAllowed are the fields of resultTypes that hold a mechanism's word and stay, each
// with why.
var resultAllowed = map[string]string{
	// The copies a shard's CPU is spread over (Core.SetReplicas), which the core's own
	// utilization divides by (Result.ShardUtilization, sim.ShardWindow).
	"Replicas": "the core's utilization reads it",
}

// TestResultNamesNoMechanism holds sim.Result, the run's result, and the stream and window
// results in it (resultTypes) to no field of one mechanism's: what a mechanism reports of
// its own goes in Result.Reports (Core.Report), of a type that figures/metrics reads
// (docs/architecture.md, "Inside the engine"). The counters of sim's per-shard results are
// the core's vocabulary and are not held here.
func TestResultNamesNoMechanism(t *testing.T) {
	words := coreWords(t)
	found := map[string]bool{}
	for _, f := range packages(t)["sim"].files {
		ast.Inspect(f, func(x ast.Node) bool {
			ts, ok := x.(*ast.TypeSpec)
			if !ok || !slices.Contains(resultTypes, ts.Name.Name) {
				return true
			}
			found[ts.Name.Name] = true
			for _, fl := range ts.Type.(*ast.StructType).Fields.List {
				var names []string
				for _, n := range fl.Names {
					names = append(names, n.Name)
				}
				names = append(names, typeNames(fl.Type)...)
			field:
				for _, n := range names {
					for _, w := range words {
						if holdsWord(n, w) && resultAllowed[n] == "" {
							t.Errorf("sim.%s's field %s names %s, a mechanism's word: what a mechanism reports goes in Result.Reports (Core.Report), of a type figures/metrics reads", ts.Name.Name, strings.Join(names, " "), n)
							break field
						}
					}
				}
			}
			return false
		})
	}
	for _, n := range resultTypes {
		if !found[n] {
			t.Errorf("sim has no type %s", n)
		}
	}
}

// typeNames are the names of the types that type expression x is made of.
func typeNames(x ast.Expr) []string {
	var out []string
	ast.Inspect(x, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			out = append(out, id.Name)
		}
		return true
	})
	return out
}

// modelRead are the model's fields read outside the core files and not for a mechanism,
// each with where.
var modelRead = map[string]string{
	"Watch": "the caller's watch of the run as it goes (capacity's early stop), read in watch.go",
}

// TestModelFieldsAreTheCores holds docs/architecture.md's "sim.Model has no per-mechanism
// field": every field of the model and of the parts it is made of (a stream, its client,
// a node) is read by the engine core (sim's files but notCore's), not only by the
// component interface that mechanisms call. A field that only a Core call for one
// mechanism reads (as a follower's apply cost was, Core.Follow) is that mechanism's
// setting, and belongs in its sim.Setting.
func TestModelFieldsAreTheCores(t *testing.T) {
	parts := map[string]bool{"Model": true, "Stream": true, "Node": true, "Client": true, "Limit": true, "Service": true, "Delay": true}
	p := packages(t)["sim"]
	fields := map[string]string{} // field: its type
	read := map[string]bool{}     // selectors the core files use
	for _, f := range p.files {
		core := !notCore[filepath.Base(p.fset.Position(f.Package).Filename)]
		ast.Inspect(f, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.TypeSpec:
				if st, ok := x.Type.(*ast.StructType); ok && parts[x.Name.Name] {
					for _, fl := range st.Fields.List {
						for _, n := range fl.Names {
							fields[n.Name] = x.Name.Name
						}
					}
				}
			case *ast.SelectorExpr:
				if core {
					read[x.Sel.Name] = true
				}
			}
			return true
		})
	}
	if len(fields) < 20 {
		t.Fatalf("found %d fields of the model's types: the walk missed them", len(fields))
	}
	for name, typ := range fields {
		if !read[name] && modelRead[name] == "" {
			t.Errorf("sim.%s's field %s is read by no file of the engine core, only by the component interface: it is a mechanism's setting (its sim.Setting's, in Model.Mechanisms)", typ, name)
		}
	}
}
