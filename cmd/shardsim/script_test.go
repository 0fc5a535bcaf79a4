package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts under testdata/script run shardsim as a command: the test
// binary re-executes itself as shardsim.
//
// In the test process (not in a re-executed shardsim), it also starts the black-friday
// run that TestBlackFridayTour checks, so that its half minute overlaps the other tests.
func TestMain(m *testing.M) {
	if dir := os.Getenv("SHARDSIM_TEST_HOLD_LOCK"); dir != "" {
		holdLock(dir) // a child of TestLockRecovers: hold dir's lock until killed
	}
	if filepath.Base(os.Args[0]) != "shardsim" {
		startBlackFriday()
	}
	testscript.Main(afterTests{m}, map[string]func(){
		"shardsim": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// afterTests runs the tests, then removes the runs they shared.
type afterTests struct{ m *testing.M }

func (a afterTests) Run() int {
	defer removeSharedDirs()
	return a.m.Run()
}

// TestScripts runs the command transcripts under testdata/script (testscript's format,
// as cmd/go's tests use it): the commands the README and the docs show, with their outputs
// checked by the figures that matter.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Setup: func(env *testscript.Env) error {
		env.Setenv("REPO", repo) // for the scripts that run files of the repository (deploy/)
		return nil
	}, Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"waitfiles":  waitFiles,
		"countfiles": countFiles,
	}})
}

// waitFiles is the script command "waitfiles N GLOB": it waits (a minute at most) until at
// least N files match GLOB, as a worker writes its items.
func waitFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfiles N GLOB")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(5 * time.Millisecond) {
		if m, _ := filepath.Glob(ts.MkAbs(args[1])); len(m) >= n {
			return
		}
	}
	ts.Fatalf("waited a minute for %d files to match %s", n, args[1])
}

// countFiles is the script command "countfiles GLOB VAR": it sets $VAR to the number of
// files that match GLOB.
func countFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: countfiles GLOB VAR")
	}
	m, _ := filepath.Glob(ts.MkAbs(args[0]))
	ts.Setenv(args[1], strconv.Itoa(len(m)))
}

// longRuns are doc commands too slow to run whole in every test run: they simulate the
// three hours of black-friday. TestDocCommands runs each for its first two simulated
// minutes (so the flags, the variant and the overrides are checked), and
// TestBlackFridayTour runs the full scenario once.
var longRuns = regexp.MustCompile(`^run black-friday\b`)

// outputOnly are the flags a test may add to a doc's command and still run that command:
// they leave out charts or report.html, which the test does not read (plots' and report's
// tests draw them, and TestScripts' performance script runs a run with and without
// charts), and change nothing else the command computes.
var outputOnly = []string{"--no-charts", "--no-html"}

// commandKey is the words of a command, joined by NUL, without the outputOnly flags: the
// key under which TestDocCommands matches a test's command to a doc's.
func commandKey(args []string) string {
	var kept []string
	for _, a := range args {
		if !slices.Contains(outputOnly, a) {
			kept = append(kept, a)
		}
	}
	return strings.Join(kept, "\x00")
}

// TestDocCommands finds every shardsim command line in the README's and the docs' code
// blocks and requires each to run in a test: a console block (TestDocs), a script under
// testdata/script (TestScripts), a run TestDocFigures makes as written
// (docFigureCommands), or, for the long black-friday runs, here with its duration cut to
// two minutes. A test may add --no-charts or --no-html (outputOnly) where it reads
// neither. A synopsis (SCENARIO, KEY=V1,...) is not a command.
func TestDocCommands(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	scripts, _ := filepath.Glob("testdata/script/*.txtar")
	var covered []string
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			// A command under a condition ("[!short] exec shardsim ...") runs where the
			// condition holds: make test-long runs the ones -short leaves out.
			if strings.HasPrefix(l, "[") {
				if i := strings.Index(l, "] "); i > 0 {
					l = strings.TrimSpace(l[i+2:])
				}
			}
			if c, ok := strings.CutPrefix(l, "exec shardsim "); ok {
				covered = append(covered, commandKey(splitScript(c)))
			}
			// A command the shell would expand (a glob) is run expanded, and named so.
			if c, ok := strings.CutPrefix(strings.TrimSpace(l), "# covers: "); ok {
				covered = append(covered, commandKey(splitScript(c)))
			}
		}
	}
	// The full black-friday run is TestBlackFridayTour's; console blocks are TestDocs';
	// docs/mitigations.md's runs are TestDocFigures'.
	covered = append(covered, commandKey([]string{"run", "black-friday"}))
	for _, c := range docFigureCommands {
		covered = append(covered, commandKey(c))
	}
	for _, f := range files {
		for _, c := range docCommands(t, f) {
			if c.console {
				covered = append(covered, c.key)
			}
		}
	}
	dir := t.TempDir()
	n := 0
	for _, f := range files {
		for _, c := range docCommands(t, f) {
			n++
			switch {
			case c.console:
			case slices.Contains(covered, c.key):
			case longRuns.MatchString(c.line):
				args, err := splitShell(c.line)
				if err != nil {
					t.Errorf("%s: %v", c.where, err)
					continue
				}
				args = append(args, "--duration", "2m", "-q", "--no-charts", "-o", filepath.Join(dir, "out"), "--force")
				var out, errb bytes.Buffer
				if code := Main(args, &out, &errb); code != 0 {
					t.Errorf("%s: shardsim %s (cut to 2 minutes): exit %d: %s", c.where, c.line, code, errb.String())
				}
			default:
				t.Errorf("%s: shardsim %s runs in no test: add it to a script under testdata/script", c.where, c.line)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d commands in the docs, want at least 10", n)
	}
}

// docCommand is a shardsim command line shown in a doc, without "shardsim ", its comment
// and its continuations.
type docCommand struct {
	where   string
	line    string
	key     string // the words a shell passes, as commandKey joins them
	console bool
}

var placeholder = regexp.MustCompile(`\b(SCENARIO|KEY|STREAM|FILE)\b|\[--|\[flags\]`)

// docCommands returns the shardsim commands in path's fenced blocks.
func docCommands(t *testing.T, path string) []docCommand {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	lines := strings.Split(string(b), "\n")
	in, lang := false, ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			in, lang = !in, strings.TrimPrefix(l, "```")
			continue
		}
		if !in {
			continue
		}
		s := strings.TrimPrefix(strings.TrimSpace(l), "$ ")
		rest, ok := strings.CutPrefix(s, "shardsim ")
		if !ok {
			continue
		}
		for strings.HasSuffix(rest, `\`) && i+1 < len(lines) {
			i++
			rest = strings.TrimSuffix(rest, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if j := strings.Index(rest, " #"); j >= 0 {
			rest = rest[:j]
		}
		rest = strings.Join(strings.Fields(rest), " ")
		if placeholder.MatchString(rest) {
			continue
		}
		args, err := splitShell(rest)
		if err != nil {
			t.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, docCommand{where: filepath.Base(path) + ":" + strconv.Itoa(i+1), line: rest, key: commandKey(args), console: lang == "console"})
	}
	return out
}

// splitScript splits a testscript command line into words: blanks separate them, and
// single quotes group them (” inside quotes is a quote).
func splitScript(s string) []string {
	var args []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case c == '\'':
			quoted, in = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		args = append(args, cur.String())
	}
	return args
}
