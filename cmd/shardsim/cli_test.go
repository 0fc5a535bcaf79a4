package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// call runs the command line and returns its exit status, stdout and stderr.
func call(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/shardsim -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update and read the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestBadScenarios runs every broken scenario under testdata/bad through validate and run:
// each must exit with status 2, name the key given on its first line ("# key: ..."), and
// print exactly the message in its .err golden file. None may panic or write files.
func TestBadScenarios(t *testing.T) {
	files, err := filepath.Glob("../../testdata/bad/*.toml")
	if err != nil || len(files) < 15 {
		t.Fatalf("want at least 15 broken scenarios, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".toml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(src), "\n")
			key, ok := strings.CutPrefix(first, "# key: ")
			if !ok {
				t.Fatalf("%s: first line must be \"# key: KEY\"", f)
			}
			code, _, stderr := call(t, "validate", f)
			if code != 2 {
				t.Fatalf("validate: exit %d, want 2; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, key) || !strings.Contains(stderr, f) {
				t.Errorf("message does not name the file %s and the key %q:\n%s", f, key, stderr)
			}
			golden(t, strings.TrimSuffix(f, ".toml")+".err", stderr)

			out := t.TempDir()
			code, _, stderr2 := call(t, "run", f, "-o", out)
			if code != 2 {
				t.Fatalf("run: exit %d, want 2; stderr:\n%s", code, stderr2)
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Errorf("run of a broken scenario left %d files in %s", len(ents), out)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"run", "no-such-scenario"},
		{"run", "--format", "yaml"},
		{"run", "--no-such-flag"},
		{"run", "--set", "cluster.nodes"},
		{"run", "--set", "cluster.nodes=0"},
		{"run", "--variant", "no such variant"},
		{"run", "-j", "0"},
		{"run", "--chart-format", "gif"},
		{"validate"},
		{"list", "extra"},
		{"sweep", "../../testdata/small.toml"},
		{"sweep", "../../testdata/small.toml", "--vary", "cluster.no_such_key=1,2"},
		{"sweep", "../../testdata/small.toml", "--vary", "keyspace.shards="},
		{"sweep", "../../testdata/small.toml", "--vary", "keyspace.shards=4,,8"},
		{"sweep", "../../testdata/small.toml", "--vary", "keyspace.shards=four,eight"},
		{"sweep", "../../testdata/small.toml", "--vary", "streams.nosuch.rate=1,2"},
		{"sweep", "../../testdata/small.toml", "--vary", "keyspace.shards=4", "--vary", "keyspace.shards=8"},
		{"sweep", "../../testdata/small.toml", "--vary", "keyspace.shards=4,8", "--budget", "forever"},
		{"capacity", "../../testdata/small.toml", "--slo", "put:p99<20ms", "--budget", "0s"},
		{"capacity", "../../testdata/small.toml", "--slo", "put:p99<20ms", "--precision", "150%"},
		{"capacity", "../../testdata/small.toml", "--slo", "put:p99<20ms", "--max-replications", "0"},
		{"sweep", "../../testdata/small.toml", "--vary", "keyspace.shards=4", "-r", "0"},
		{"capacity", "../../testdata/small.toml"},
		{"capacity", "../../testdata/small.toml", "--slo", "nosuch:p99<50ms"},
		{"capacity", "../../testdata/small.toml", "--slo", "put:p99<"},
		{"capacity", "../../testdata/small.toml", "--slo", "put:p97<50ms"},
		{"capacity", "../../testdata/small.toml", "--slo", "put:p99<50ms", "--max-errors", "lots"},
	} {
		code, _, stderr := call(t, args...)
		if code != 2 {
			t.Errorf("shardsim %q: exit %d, want 2; stderr:\n%s", args, code, stderr)
		}
		if !strings.Contains(stderr, "shardsim:") {
			t.Errorf("shardsim %q: no error message on stderr:\n%s", args, stderr)
		}
	}
}

// firstMinutes is a run of the default scenario, black-friday, cut to its first five
// minutes (a minute of warmup), made once for the tests that read it. It draws no charts:
// no test reads them (they were half the run's time), and the data files are the same
// without them.
type firstMinutes struct {
	once sync.Once
	dir  string
	err  error
}

var (
	firstMinutesMu   sync.Mutex
	firstMinutesRuns = map[string]*firstMinutes{}
)

// blackFridayFirstMinutes makes the run of the default scenario's first five minutes with
// the extra flags (once per flags, whichever test asks first) and returns its directory.
// The five variants run the same traffic there as in the first ten minutes (no alert, no
// event yet), at half the requests.
func blackFridayFirstMinutes(t *testing.T, extra ...string) string {
	t.Helper()
	k := strings.Join(extra, "\x00")
	firstMinutesMu.Lock()
	r, ok := firstMinutesRuns[k]
	if !ok {
		r = &firstMinutes{}
		firstMinutesRuns[k] = r
	}
	firstMinutesMu.Unlock()
	r.once.Do(func() {
		// Not t.TempDir: the run outlives the test that made it.
		if r.dir, r.err = sharedDir("shardsim-first-minutes-"); r.err != nil {
			return
		}
		args := append([]string{"run", "--duration", "5m", "--set", `warmup="1m"`, "-q", "--no-charts", "-o", r.dir, "--force"}, extra...)
		if code, _, stderr := call(t, args...); code != 0 {
			r.err = fmt.Errorf("shardsim %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.dir
}

// TestDeterministicAcrossParallelism runs the default scenario, black-friday, shortened to
// its first five minutes, with one and two workers: every output file must be
// byte-identical.
func TestDeterministicAcrossParallelism(t *testing.T) {
	t.Parallel()
	dirs := []string{blackFridayFirstMinutes(t, "-j", "1"), blackFridayFirstMinutes(t, "-j", "2")}
	for _, f := range []string{"summary.json", "streams.csv", "shards.csv", "nodes.csv", "report.md", "report.html"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between -j 1 and -j 2", f)
		}
	}
}

// TestSeedChangesResults guards the determinism test against a run that ignores its seed:
// the determinism test's run (the scenario's seed, 42) and one with --seed 1 must differ.
func TestSeedChangesResults(t *testing.T) {
	t.Parallel()
	var outs []string
	for _, dir := range []string{blackFridayFirstMinutes(t, "-j", "1"), blackFridayFirstMinutes(t, "-j", "2", "--seed", "1")} {
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	if outs[0] == outs[1] {
		t.Error("seeds 42 and 1 gave the same summary")
	}
}

// TestTextGolden pins the text tables of a small scenario.
func TestTextGolden(t *testing.T) {
	code, out, stderr := call(t, "run", "../../testdata/small.toml", "-q", "-o", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "../../testdata/small.txt", out)
}

func TestListAndVersion(t *testing.T) {
	code, out, _ := call(t, "list")
	if code != 0 || !strings.Contains(out, "quickstart") {
		t.Errorf("list: exit %d, output:\n%s", code, out)
	}
	// Every description starts in one column, after the longest name
	// (black-friday-migration once pushed its own out of line).
	col := -1
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, _, _ := strings.Cut(line, " ")
		at := len(line) - len(strings.TrimLeft(line[len(name):], " "))
		if col >= 0 && at != col {
			t.Errorf("list: %q's description starts at column %d, the first at %d", name, at, col)
		}
		col = at
	}
	code, out, _ = call(t, "version")
	if code != 0 || !strings.HasPrefix(out, "shardsim ") {
		t.Errorf("version: exit %d, output %q", code, out)
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"One. Two.":             "One.",
		"How many? Sweep it.":   "How many?",
		"No stop":               "No stop",
		"Wrapped\n  line. Next": "Wrapped line.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCPUProfileEveryCommand checks that run, sweep and capacity each write the CPU profile
// --cpuprofile names (sweep and capacity once accepted the flag and ignored it).
func TestCPUProfileEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"run", "../../testdata/small.toml"},
		{"sweep", "../../testdata/small.toml", "--vary", "keyspace.shards=4,8"},
		{"capacity", "../../testdata/small.toml", "--slo", "put:p99<50ms"},
	} {
		prof := filepath.Join(t.TempDir(), "cpu.pprof")
		args = append(args, "-q", "--no-charts", "--duration", "20s", "--set", `warmup="5s"`, "-o", t.TempDir(), "--cpuprofile", prof)
		if code, _, stderr := call(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, stderr)
		}
		if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
			t.Errorf("%s --cpuprofile: %v, want a non-empty profile", args[0], err)
		}
	}
}
