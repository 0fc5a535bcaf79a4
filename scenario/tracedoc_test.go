package scenario

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestTraceRefusalsDocumented: every stream key that a trace stream refuses ("remove X"
// in the problem, found by resolving a trace stream that sets every key a stream may
// have) is named in docs/scenario.md's row for trace. (The keys a mechanism refuses on a
// trace stream, as lock, are its own tests': mechanisms/locks' TestLockKeys.)
func TestTraceRefusalsDocumented(t *testing.T) {
	f := minimal()
	var think Dist
	if err := think.DecodeTOML("5ms"); err != nil {
		t.Fatal(err)
	}
	clients, rate := 4, 10.0
	f.Streams = []Stream{{Name: "log", Op: OpWrite, Rate: &rate, Cost: Dur("1ms"), Where: map[string]string{"id": "="},
		Clients: &clients, Think: think,
		Trace: &Trace{Path: "log.csv"}}}
	_, probs := Resolve(&f)
	removed := regexp.MustCompile(`remove (\w+)(?: and (\w+))?`)
	var refused []string
	for _, p := range probs {
		if m := removed.FindStringSubmatch(p.Msg); m != nil {
			refused = append(refused, m[1])
			if m[2] != "" {
				refused = append(refused, m[2])
			}
		}
	}
	if len(refused) < 6 {
		t.Fatalf("a trace stream refuses %v, want at least op, rate, schedule, where, clients and think: %v", refused, probs)
	}
	doc, err := os.ReadFile("../docs/scenario.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "| `trace` |") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("docs/scenario.md has no row for trace")
	}
	for _, k := range refused {
		if !strings.Contains(row, "`"+k+"`") {
			t.Errorf("docs/scenario.md's trace row does not say that a trace stream refuses %s", k)
		}
	}
}
