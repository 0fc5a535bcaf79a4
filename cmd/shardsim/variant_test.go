package main

import (
	"strings"
	"testing"
)

// TestVariantFlag: --variant takes the exact name, a prefix of one name only, or the index
// from 0, the same in every command that takes it (they share scenarios.Load); an
// ambiguous prefix or an unknown name is a usage error listing the variants by index.
// testdata/small.toml has two variants, "by user" and "by id"; runs are 5 s simulated.
func TestVariantFlag(t *testing.T) {
	const small = "../../testdata/small.toml"
	short := []string{"-q", "--no-charts", "-j", "1", "--duration", "5s", "--set", `warmup="1s"`}
	commandLine := map[string][]string{
		"run":      {"run", small},
		"explain":  {"explain", small},
		"sweep":    {"sweep", small, "--vary", "keyspace.shards=4"},
		"capacity": {"capacity", small, "--slo", "put:p99<50ms"},
	}
	for cmd, base := range commandLine {
		args := func(extra ...string) []string {
			a := append(append([]string(nil), base...), extra...)
			if cmd != "explain" {
				a = append(a, short...)
				a = append(a, "-o", t.TempDir())
			}
			return a
		}
		for _, pick := range []string{"by id", "by i", "1"} {
			code, out, stderr := call(t, args("--variant", pick)...)
			if code != 0 {
				t.Errorf("%s --variant %q: exit %d: %s", cmd, pick, code, stderr)
				continue
			}
			if !strings.Contains(out, "by id") || strings.Contains(out, "by user") {
				t.Errorf("%s --variant %q: want the variant \"by id\" alone:\n%s", cmd, pick, out)
			}
		}
		for pick, why := range map[string]string{
			"by":      `"by": matches 2 variants; give more of the name or an index`,
			"by name": `"by name": no such variant`,
			"2":       `"2": no such variant`,
			"":        `"": no such variant`,
		} {
			code, _, stderr := call(t, args("--variant", pick)...)
			if code != 2 || !strings.Contains(stderr, why) || !strings.Contains(stderr, `(have 0 "by user", 1 "by id")`) {
				t.Errorf("%s --variant %q: exit %d, stderr %q; want 2, %q and the variants", cmd, pick, code, stderr, why)
			}
		}
	}
	// A scenario without [[variants]] has one design, "base", which answers to 0 as well.
	for _, pick := range []string{"base", "b", "0"} {
		if code, _, stderr := call(t, "explain", "orders", "--variant", pick); code != 0 {
			t.Errorf("explain orders --variant %q: exit %d: %s", pick, code, stderr)
		}
	}
	if code, _, stderr := call(t, "explain", "orders", "--variant", "1"); code != 2 || !strings.Contains(stderr, `its one design is 0 "base"`) {
		t.Errorf("explain orders --variant 1: exit %d, %q", code, stderr)
	}
}

// TestUnknownScenarioSuggests: a SCENARIO that is neither a file nor a built-in names the
// nearest built-in beside the list, in every command that takes one.
func TestUnknownScenarioSuggests(t *testing.T) {
	for _, args := range [][]string{
		{"run", "blackfriday"},
		{"explain", "blackfriday"},
		{"validate", "blackfriday"},
		{"sweep", "blackfriday", "--vary", "cluster.nodes=2,3"},
		{"capacity", "blackfriday", "--slo", "create_order:p99<50ms"},
		{"run", "Black_Friday"},
		{"run", "black-fryday"},
	} {
		if args[0] != "validate" && args[0] != "explain" {
			args = append(args, "-o", t.TempDir())
		}
		code, _, stderr := call(t, args...)
		if code != 2 || !strings.Contains(stderr, `did you mean "black-friday"?`) || !strings.Contains(stderr, "(built-ins: black-friday, black-friday-migration, celebrity,") {
			t.Errorf("shardsim %s: exit %d, stderr %q; want 2, the suggestion and the built-ins", strings.Join(args, " "), code, stderr)
		}
	}
	code, _, stderr := call(t, "explain", "zzzzzzzz")
	if code != 2 || strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "built-ins: ") {
		t.Errorf("explain zzzzzzzz: exit %d, %q; want 2, the list and no suggestion", code, stderr)
	}
}
