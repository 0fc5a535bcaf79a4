package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/spf13/pflag"
)

// TestEngineCores: the quickstart's three variants run on one core and split among three
// (--engine-cores, sim.RunOn) write the same files, byte for byte.
func TestEngineCores(t *testing.T) {
	t.Parallel()
	var dirs []string
	for _, cores := range []string{"1", "3"} {
		dir := t.TempDir()
		if code, _, stderr := call(t, "run", "quickstart", "--duration", "20s", "-j", "1", "--engine-cores", cores, "-q", "--no-charts", "-o", dir, "--force"); code != 0 {
			t.Fatalf("--engine-cores %s: exit %d: %s", cores, code, stderr)
		}
		dirs = append(dirs, dir)
	}
	for _, f := range []string{"summary.json", "streams.csv", "shards.csv", "nodes.csv", "report.md", "report.html"} {
		a, errA := os.ReadFile(filepath.Join(dirs[0], f))
		b, errB := os.ReadFile(filepath.Join(dirs[1], f))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between --engine-cores 1 and 3", f)
		}
	}
}

// TestEngineCoresFeedback: black-friday's payment callbacks time out and retry, feedback
// with zero lookahead between the nodes and the clients, so its runs stay on one core,
// and run says so on stderr; --engine-cores 0 is refused.
func TestEngineCoresFeedback(t *testing.T) {
	t.Parallel()
	code, _, stderr := call(t, "run", "black-friday", "--variant", "before", "--duration", "1m", "--set", `warmup="10s"`,
		"--engine-cores", "2", "--no-charts", "--no-html", "-o", t.TempDir(), "--force")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := `ran on one core of 2: stream "payment_callback" has a client timeout, retries or a rate limit`; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if code, _, stderr := call(t, "run", "quickstart", "--engine-cores", "0"); code != 2 || !strings.Contains(stderr, "--engine-cores 0: want at least 1") {
		t.Errorf("--engine-cores 0: exit %d, stderr %q; want 2 and the flag named", code, stderr)
	}
}

// TestVariantCores: without --engine-cores, run gives each variant running at once an
// equal share of the processors (at most four) if it is expected to take a second or
// more on one core and the memory bound holds so split; --engine-cores wins. Run with
// GOMAXPROCS at 4 (and 16) whatever the machine, so that shares of more than one exist.
func TestVariantCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	load := func(name string, sets ...string) *scenarios.Scenario {
		sc, err := scenarios.Load(name, scenarios.Options{Sets: sets, Parallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	auto := &common{parallel: 2}
	for _, tc := range []struct {
		what string
		sc   *scenarios.Scenario
		want []int
	}{
		{"one long variant: the whole machine", load("../../testdata/bench/open1000.toml"), []int{4}},
		{"two short variants: one core each", load("../../testdata/small.toml"), []int{1, 1}},
		{"three long variants two at a time: half each", load("quickstart", `duration="2h"`), []int{2, 2, 2}},
	} {
		if got := auto.variantCores(tc.sc); !slices.Equal(got, tc.want) {
			t.Errorf("%s: cores %v, want %v (expected %.1f s on one core)", tc.what, got, tc.want, tc.sc.Variants[0].Work.Seconds)
		}
	}
	// On 16 processors, two variants at once get four each, which would take this run
	// past the memory bound: one each instead.
	runtime.GOMAXPROCS(16)
	big := load("quickstart", "cluster.nodes=8000", "keyspace.shards=1000", `window="1s"`, `duration="20m"`)
	for _, v := range big.Variants {
		if v.Work.Seconds < autoSplitSeconds {
			t.Fatalf("variant %q expected to take %.1f s: too short to tell the memory bound's part", v.Name, v.Work.Seconds)
		}
	}
	if got := auto.variantCores(big); !slices.Equal(got, []int{1, 1, 1}) {
		t.Errorf("split past the memory bound: cores %v, want one each", got)
	}
	runtime.GOMAXPROCS(4)
	given := &common{parallel: 2}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	given.register(fs, "")
	if err := fs.Parse([]string{"--engine-cores", "3"}); err != nil {
		t.Fatal(err)
	}
	if got := given.variantCores(load("../../testdata/small.toml")); !slices.Equal(got, []int{3, 3}) {
		t.Errorf("--engine-cores 3: cores %v, want [3 3]", got)
	}
}
