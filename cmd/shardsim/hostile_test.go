package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// The hostile corpus (testdata/hostile) run through every command and writer: each probe
// is a subtest named CLASS/what, so that `go test -run TestHostile -v` counts the probes
// held per class (the classes of issue 33). The probes use only the command line and the
// files it writes.

const hostile = "../../testdata/hostile/"

// hostileOutput is a command's exit status and outputs, and the directory it wrote.
type hostileOutput struct {
	dir            string
	code           int
	stdout, stderr string
}

// hostileRuns are the commands over the hostile scenario that more than one probe reads,
// each made once (by the first test that asks) into a directory that outlives it: the run
// with its charts and report.html, and the sweep of two shard counts with its charts, -f
// text. TestHostileInjection checks their outputs for what must be escaped, and
// TestHostileDataLoss their charts of streams whose names differ only in case.
var hostileRuns struct {
	mu   sync.Mutex
	once map[string]*sync.Once
	out  map[string]*hostileOutput
}

// hostileCommand runs shardsim with args and -o DIR once, for every test that asks for
// the same args, and returns what it did. It fails t if the command did not exit 0.
func hostileCommand(t *testing.T, args ...string) *hostileOutput {
	t.Helper()
	k := strings.Join(args, "\x00")
	hostileRuns.mu.Lock()
	if hostileRuns.once == nil {
		hostileRuns.once, hostileRuns.out = map[string]*sync.Once{}, map[string]*hostileOutput{}
	}
	once, ok := hostileRuns.once[k]
	if !ok {
		once = &sync.Once{}
		hostileRuns.once[k] = once
		hostileRuns.out[k] = &hostileOutput{}
	}
	o := hostileRuns.out[k]
	hostileRuns.mu.Unlock()
	once.Do(func() {
		root, err := sharedDir("shardsim-hostile-")
		if err != nil {
			o.code, o.stderr = -1, err.Error()
			return
		}
		o.dir = filepath.Join(root, "out")
		o.code, o.stdout, o.stderr = call(t, append(args, "-o", o.dir)...)
	})
	if o.code != 0 {
		t.Fatalf("shardsim %s: exit %d: %s", strings.Join(args, " "), o.code, o.stderr)
	}
	return o
}

// hostileRun is the run of the hostile scenario with its charts and report.html.
func hostileRun(t *testing.T) *hostileOutput {
	return hostileCommand(t, "run", hostile+"scenario.toml")
}

// hostileSweep is the sweep of the hostile scenario over two shard counts, with its
// charts, -f text.
func hostileSweep(t *testing.T) *hostileOutput {
	return hostileCommand(t, "sweep", hostile+"scenario.toml", "-q", "-f", "text", "--variant", "0", "--vary", "keyspace.shards=2,4")
}

// rawControl returns the first character in b that must not reach a terminal raw (a C0
// control but tab, newline and, where crOK, carriage return; DEL; a C1 control; a bidi
// override or isolate), or "" when there is none.
func rawControl(b []byte, crOK bool) string {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r < 0x20 && r != '\t' && r != '\n' && !(crOK && r == '\r'), r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			lo, hi := max(0, i-30), min(len(b), i+30)
			return fmt.Sprintf("%U at byte %d in %q", r, i, b[lo:hi])
		}
		i += n
	}
	return ""
}

// rawTag finds an HTML tag in Markdown text: a '<' followed by a letter, '/' or '!'.
var rawTag = regexp.MustCompile(`<[A-Za-z/!?]`)

// plainNumber is a CSV cell a spreadsheet reads as a number, not a formula.
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// formulaCell returns the first cell of a CSV text that a spreadsheet would run as a
// formula (OWASP: it starts with = + - @ tab or CR and is not a plain number), or "".
func formulaCell(b []byte) string {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return "unreadable CSV: " + err.Error()
	}
	for _, rec := range recs {
		for _, c := range rec {
			if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) && !plainNumber.MatchString(c) {
				return c
			}
		}
	}
	return ""
}

// unescapedPipes counts the '|' of a Markdown table line that are not escaped.
func unescapedPipes(l string) int {
	n := 0
	for i := 0; i < len(l); i++ {
		if l[i] == '\\' {
			i++
			continue
		}
		if l[i] == '|' {
			n++
		}
	}
	return n
}

// badTable returns a Markdown table row whose unescaped pipes differ from its header's (a
// value that split its cell), or "".
func badTable(md string) string {
	want := -1
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			want = -1
			continue
		}
		n := unescapedPipes(l)
		if want < 0 {
			want = n
		} else if n != want {
			return l
		}
	}
	return ""
}

// checkMarkdown reports raw tags, split table rows and raw control characters in md.
func checkMarkdown(t *testing.T, what string, md []byte) {
	t.Helper()
	if m := rawTag.Find(md); m != nil {
		i := bytes.Index(md, m)
		t.Errorf("%s: a raw HTML tag: %q", what, md[max(0, i-20):min(len(md), i+40)])
	}
	if l := badTable(string(md)); l != "" {
		t.Errorf("%s: a table row whose cells a value split: %q", what, l)
	}
	if c := rawControl(md, false); c != "" {
		t.Errorf("%s: a raw control character: %s", what, c)
	}
}

// checkTerminal reports raw control characters in a command's outputs.
func checkTerminal(t *testing.T, what, stdout, stderr string) {
	t.Helper()
	if c := rawControl([]byte(stdout), false); c != "" {
		t.Errorf("%s: stdout: %s", what, c)
	}
	if c := rawControl([]byte(stderr), false); c != "" {
		t.Errorf("%s: stderr: %s", what, c)
	}
}

// checkDir checks every file a command wrote: CSV files for formulas and control
// characters, Markdown for tags, split rows and control characters, JSON for control
// characters.
func checkDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		switch filepath.Ext(e.Name()) {
		case ".csv":
			if c := formulaCell(b); c != "" {
				t.Errorf("%s: a formula cell %q", e.Name(), c)
			}
			if c := rawControl(b, false); c != "" {
				t.Errorf("%s: %s", e.Name(), c)
			}
		case ".md":
			checkMarkdown(t, e.Name(), b)
		case ".json":
			if c := rawControl(b, false); c != "" {
				t.Errorf("%s: %s", e.Name(), c)
			}
		}
	}
}

func TestHostileInjection(t *testing.T) {
	scn := hostile + "scenario.toml"
	tmp := t.TempDir()
	run := hostileRun(t)
	runDir, stdout, stderr := run.dir, run.stdout, run.stderr
	t.Run("Injection/run-text", func(t *testing.T) { checkTerminal(t, "run", stdout, stderr) })
	t.Run("Injection/run-files", func(t *testing.T) { checkDir(t, runDir) })
	t.Run("Injection/report.md-values-escaped", func(t *testing.T) {
		md, _ := os.ReadFile(filepath.Join(runDir, "report.md"))
		for _, v := range []string{"<script>", "<img", "<iframe"} {
			if bytes.Contains(md, []byte(v)) {
				t.Errorf("report.md holds %q raw", v)
			}
		}
		if m := regexp.MustCompile(`(^|[^\\])\]\(javascript:`).Find(md); m != nil {
			t.Errorf("report.md holds a javascript: link: %q", m)
		}
	})
	for _, f := range []string{"markdown", "csv", "json"} {
		t.Run("Injection/run-f-"+f, func(t *testing.T) {
			code, stdout, stderr := call(t, "run", scn, "-q", "--no-charts", "-o", filepath.Join(tmp, "run-"+f), "-f", f)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			checkTerminal(t, "run -f "+f, stdout, stderr)
			switch f {
			case "markdown":
				checkMarkdown(t, "run -f markdown", []byte(stdout))
			case "csv":
				if c := formulaCell([]byte(stdout)); c != "" {
					t.Errorf("a formula cell %q", c)
				}
			}
		})
	}
	for _, f := range []string{"text", "markdown"} {
		t.Run("Injection/explain-"+f, func(t *testing.T) {
			code, stdout, stderr := call(t, "explain", scn, "-f", f)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			checkTerminal(t, "explain", stdout, stderr)
		})
	}
	t.Run("Injection/validate-echo", func(t *testing.T) {
		src, _ := os.ReadFile(scn)
		bad := strings.Replace(string(src), "seed        = 1", "seed        = 1\nnodes_typo = \"\\u001b[2J\"", 1)
		bad = strings.Replace(bad, `cores = 3`, `cores = "\u001b]0;x\u0007"`, 1)
		p := filepath.Join(tmp, "bad.toml")
		os.WriteFile(p, []byte(bad), 0o644)
		code, stdout, stderr := call(t, "validate", p)
		if code != 2 {
			t.Errorf("exit %d, want 2: %s", code, stderr)
		}
		checkTerminal(t, "validate", stdout, stderr)
	})
	for _, kind := range []string{"sweep", "capacity"} {
		for _, f := range []string{"text", "markdown", "csv"} {
			t.Run(fmt.Sprintf("Injection/%s-%s", kind, f), func(t *testing.T) {
				dir := filepath.Join(tmp, kind+"-"+f)
				args := []string{kind, scn, "-q", "-f", f, "--variant", "0"}
				if kind == "sweep" {
					args = append(args, "--vary", "keyspace.shards=2,4")
					// The sweep's charts (most of its time) are drawn once, with the text
					// output (hostileSweep, which TestHostileDataLoss reads too): the files
					// checkDir reads and the output on stdout are the same with and without
					// them.
					if f != "text" {
						args = append(args, "--no-charts")
					}
				} else {
					args = append(args, "--slo", "Orders:p99<50ms", "--duration", "30s")
				}
				var code int
				var stdout, stderr string
				if kind == "sweep" && f == "text" {
					sw := hostileSweep(t)
					dir, code, stdout, stderr = sw.dir, sw.code, sw.stdout, sw.stderr
				} else {
					code, stdout, stderr = call(t, append(args, "-o", dir)...)
				}
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				checkTerminal(t, kind, stdout, stderr)
				switch f {
				case "markdown":
					checkMarkdown(t, kind+" -f markdown", []byte(stdout))
				case "csv":
					if c := formulaCell([]byte(stdout)); c != "" {
						t.Errorf("a formula cell %q", c)
					}
				}
				checkDir(t, dir)
			})
		}
	}
	for _, f := range []string{"text", "markdown", "json"} {
		t.Run("Injection/analyze-"+f, func(t *testing.T) {
			code, stdout, stderr := call(t, "analyze", hostile+"keys.csv", "-f", f, "--key", "key", "--top", "30")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			checkTerminal(t, "analyze", stdout, stderr)
			if f == "markdown" {
				checkMarkdown(t, "analyze -f markdown", []byte(stdout))
			}
		})
	}
	t.Run("Injection/fit", func(t *testing.T) {
		p := filepath.Join(tmp, "fit.toml")
		code, stdout, stderr := call(t, "fit", hostile+"keys.csv", "-o", p)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		checkTerminal(t, "fit", stdout, stderr)
		b, _ := os.ReadFile(p)
		if c := rawControl(b, false); c != "" {
			t.Errorf("fit.toml: %s", c)
		}
	})
}

func TestHostileDataLoss(t *testing.T) {
	tmp := t.TempDir()
	cp := func(src, name string) (string, []byte) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, name)
		os.WriteFile(p, b, 0o644)
		return p, b
	}
	kept := func(t *testing.T, p string, want []byte) {
		if b, _ := os.ReadFile(p); !bytes.Equal(b, want) {
			t.Errorf("%s was replaced (%d bytes, had %d)", filepath.Base(p), len(b), len(want))
		}
	}
	t.Run("DataLoss/fit-o-onto-its-log", func(t *testing.T) {
		log, b := cp(hostile+"keys.csv", "fitlog.csv")
		code, _, stderr := call(t, "fit", log, "-o", log)
		if code != 2 {
			t.Errorf("exit %d, want 2: %s", code, stderr)
		}
		kept(t, log, b)
	})
	t.Run("DataLoss/analyze-chart-onto-its-log", func(t *testing.T) {
		log, b := cp(hostile+"keys.csv", "chartlog.svg")
		code, _, stderr := call(t, "analyze", log, "--format", "csv", "--chart", log)
		if code != 2 {
			t.Errorf("exit %d, want 2: %s", code, stderr)
		}
		kept(t, log, b)
	})
	for _, kind := range []string{"run", "sweep"} {
		t.Run("DataLoss/"+kind+"-cpuprofile-onto-the-scenario", func(t *testing.T) {
			scn, b := cp("../../testdata/small.toml", kind+"-small.toml")
			args := []string{kind, scn, "-q", "--no-charts", "-o", filepath.Join(tmp, kind+"-out"), "--cpuprofile", scn}
			if kind == "sweep" {
				args = append(args, "--vary", "keyspace.shards=2,4")
			}
			code, _, stderr := call(t, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
			kept(t, scn, b)
		})
	}
	t.Run("DataLoss/streams-differing-in-case-get-own-charts", func(t *testing.T) {
		dir := hostileRun(t).dir // TestHostileInjection's run, made once for both
		p99, _ := filepath.Glob(filepath.Join(dir, "p99-*.png"))
		cdf, _ := filepath.Glob(filepath.Join(dir, "cdf-*.png"))
		if len(p99) != 4 || len(cdf) != 4 { // Orders, orders, a.b, a_b
			t.Errorf("4 streams, %d p99 charts and %d distribution charts: %v", len(p99), len(cdf), p99)
		}
		md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
		for _, p := range append(p99, cdf...) {
			if n := bytes.Count(md, []byte("("+filepath.Base(p)+")")); n != 1 {
				t.Errorf("report.md shows %s %d times, want once", filepath.Base(p), n)
			}
		}
	})
	t.Run("DataLoss/sweep-streams-differing-in-case", func(t *testing.T) {
		dir := hostileSweep(t).dir // TestHostileInjection's sweep, made once for both
		p99, _ := filepath.Glob(filepath.Join(dir, "sweep-p99-*.png"))
		if len(p99) != 4 {
			t.Errorf("4 streams, %d p99 charts: %v", len(p99), p99)
		}
	})
}

func TestHostileUnclearErrors(t *testing.T) {
	t.Run("UnclearErrors/truncated-gzip-analyze", func(t *testing.T) {
		code, _, stderr := call(t, "analyze", hostile+"truncated.csv.gz")
		if code != 2 || !strings.Contains(stderr, "truncated.csv.gz") || !strings.Contains(stderr, "cut short") {
			t.Errorf("exit %d, want 2 and a message that the file is cut short: %q", code, stderr)
		}
	})
	t.Run("UnclearErrors/truncated-gzip-fit", func(t *testing.T) {
		code, _, stderr := call(t, "fit", hostile+"truncated.csv.gz", "-o", filepath.Join(t.TempDir(), "f.toml"))
		if code != 2 || !strings.Contains(stderr, "cut short") {
			t.Errorf("exit %d, want 2 and a message that the file is cut short: %q", code, stderr)
		}
	})
	t.Run("UnclearErrors/zstd-bomb-without-header", func(t *testing.T) {
		start := time.Now()
		code, _, stderr := call(t, "analyze", hostile+"bomb-no-header.csv.zst")
		if code != 2 || !strings.Contains(stderr, "no header row in the first") {
			t.Errorf("exit %d, want 2 and a bounded search for the header: %q", code, stderr)
		}
		t.Logf("took %v", time.Since(start))
	})
	t.Run("UnclearErrors/zstd-bomb", func(t *testing.T) {
		code, _, stderr := call(t, "analyze", hostile+"bomb.csv.zst")
		if code != 2 || !strings.Contains(stderr, "decompression bomb") {
			t.Errorf("exit %d, want 2 and the expansion refused: %q", code, stderr)
		}
	})
	t.Run("UnclearErrors/bad-chart-before-the-log", func(t *testing.T) {
		// The log is cut short: a command that reads it before checking --chart reports
		// the log; the chart's missing directory must be found first.
		code, _, stderr := call(t, "analyze", hostile+"truncated.csv.gz", "--chart", filepath.Join(t.TempDir(), "missing", "rate.png"))
		if code != 2 || !strings.Contains(stderr, "--chart") {
			t.Errorf("exit %d, want 2 and --chart named: %q", code, stderr)
		}
	})
	t.Run("UnclearErrors/chart-format-before-the-log", func(t *testing.T) {
		code, _, stderr := call(t, "analyze", hostile+"truncated.csv.gz", "--chart", filepath.Join(t.TempDir(), "rate.gif"))
		if code != 2 || !strings.Contains(stderr, "--chart") {
			t.Errorf("exit %d, want 2 and --chart named: %q", code, stderr)
		}
	})
}

func TestHostileOutputDirectory(t *testing.T) {
	t.Parallel() // its runs are small or other processes, and it mostly waits for them
	run := func(dir string, extra ...string) (int, string) {
		code, _, stderr := call(t, append([]string{"run", "quickstart", "-q", "--no-charts", "--no-html", "--duration", "5s", "--variant", "0", "-o", dir}, extra...)...)
		return code, stderr
	}
	t.Run("OutputDirectory/stale-lock-naming-our-pid", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, ".shardsim.lock"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
		if code, stderr := run(dir); code != 0 {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
	flock, err := exec.LookPath("flock")
	holder := func(t *testing.T, dir string) *exec.Cmd {
		if err != nil {
			t.Skip("no flock(1)")
		}
		os.MkdirAll(dir, 0o755)
		lock := filepath.Join(dir, ".shardsim.lock")
		// flock -o holds the lock in the flock process alone; its pid goes in the file.
		cmd := exec.Command(flock, "-o", lock, "sleep", "5")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(lock, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
		time.Sleep(200 * time.Millisecond)
		return cmd
	}
	t.Run("OutputDirectory/live-lock-refuses", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		cmd := holder(t, dir)
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		if code, stderr := run(dir); code != 2 || !strings.Contains(stderr, "another shardsim") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
	t.Run("OutputDirectory/killed-runs-lock-taken-over", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		cmd := holder(t, dir)
		cmd.Process.Signal(syscall.SIGKILL)
		time.Sleep(200 * time.Millisecond) // dead, not yet reaped
		defer cmd.Wait()
		if code, stderr := run(dir); code != 0 {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
	// An interrupted replacement leaves the old set or the new one, each whole, and a
	// marker that lists exactly what is there.
	oneSet := func(t *testing.T, before, after, whole map[string][32]byte) {
		t.Helper()
		before, after, whole = maps.Clone(before), maps.Clone(after), maps.Clone(whole)
		for _, m := range []map[string][32]byte{before, after, whole} {
			delete(m, lockFile)
		}
		if !maps.Equal(after, before) && !maps.Equal(after, whole) {
			var mixed []string
			for n, b := range after {
				if b != before[n] && b != whole[n] {
					mixed = append(mixed, n)
				}
			}
			t.Errorf("neither the old set (%d files) nor the new one (%d): %d files there, %d of them in neither: %v", len(before), len(whole), len(after), len(mixed), mixed)
		}
	}
	// The new set, whole: a run is deterministic for its seed; the first run is seed 1's.
	interrupted := func(t *testing.T, interrupt func(bin string, args []string)) {
		bin, whole := wholeReplacement(t)
		dir := filepath.Join(t.TempDir(), "out")
		if out, err := exec.Command(bin, replaceArgs(dir, "1")...).CombinedOutput(); err != nil {
			t.Fatalf("first run: %v\n%s", err, out)
		}
		before := snapshot(t, dir)
		interrupt(bin, replaceArgs(dir, "2"))
		oneSet(t, before, snapshot(t, dir), whole)
	}
	t.Run("OutputDirectory/disk-full-keeps-one-set", func(t *testing.T) {
		if _, err := exec.LookPath("prlimit"); err != nil {
			t.Skip("no prlimit")
		}
		// The replacement TestInterruptedReplaceKeepsASet checks too, made once for both.
		_, whole := wholeReplacement(t)
		_, before, after := diskFullReplacement(t)
		oneSet(t, before, after, whole)
	})
	for _, after := range []time.Duration{400 * time.Millisecond, 900 * time.Millisecond} {
		t.Run(fmt.Sprintf("OutputDirectory/sigkill-after-%v-keeps-one-set", after), func(t *testing.T) {
			if testing.Short() {
				t.Skip("whole runs killed at set times: make test-long runs them (-short); TestInterruptedReplaceKeepsASet kills one in make test")
			}
			interrupted(t, func(bin string, args []string) {
				cmd := exec.Command(bin, args...)
				cmd.Start()
				time.Sleep(after)
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
			})
		})
	}
}
