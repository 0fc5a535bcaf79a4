package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestCommandHelp: every command's --help, -h and "shardsim help CMD" print the same help
// on stdout, with status 0 and nothing on stderr: help asked for is not an error.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		code, want, stderr := call(t, c.name, "--help")
		if code != 0 || stderr != "" {
			t.Errorf("%s --help: exit %d, stderr %q; want 0 and nothing", c.name, code, stderr)
		}
		for _, part := range []string{"Usage: shardsim " + c.name + " ", "\nExamples:\n  shardsim " + c.name, "\nFlags:\n", "-h, --help"} {
			if !strings.Contains(want, part) {
				t.Errorf("%s --help lacks %q:\n%s", c.name, part, want)
			}
		}
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}, {c.name, "extra", "--help"}} {
			if code, out, stderr := call(t, args...); code != 0 || out != want || stderr != "" {
				t.Errorf("shardsim %s: exit %d, stderr %q, stdout differs from %s --help: %v", strings.Join(args, " "), code, stderr, c.name, out != want)
			}
		}
	}
	code, general, _ := call(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, c := range commands {
		if !strings.Contains(general, "\n  "+c.name) {
			t.Errorf("the general help does not list %s:\n%s", c.name, general)
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help", "help"}, {"help", "--help"}} {
		if code, out, _ := call(t, args...); code != 0 || out != general {
			t.Errorf("shardsim %s: exit %d, and its output is not the general help's", strings.Join(args, " "), code)
		}
	}
}

// TestFlagHelp checks every flag of every command as its help shows it: no backquote
// (pflag takes a backquoted word for the argument's name), no default stated in the usage
// string (pflag adds its own, so it would show twice), and the default shown is the one
// the command uses: the flag's value before parsing, except for the flags whose zero value
// stands for something the help says in words.
func TestFlagHelp(t *testing.T) {
	words := map[string]string{
		"run --out":           "out/<scenario-name>",
		"sweep --out":         "out/<scenario-name>-sweep",
		"capacity --out":      "out/<scenario-name>-capacity",
		"merge --out":         "the one DIR given, or out/<scenario-name>-<kind>",
		"--seed":              "the scenario's", // -1 until --seed is given
		"--duration":          "the scenario's", // "" until --duration is given
		"run --parallel":      "the number of CPUs",
		"sweep --parallel":    "the number of CPUs",
		"capacity --parallel": "the number of CPUs",
		"fit --name":          "fit-<the log's file name>, e.g. fit-access for access.csv",
		"--log-format":        "csv, or the format of the scenario's log", // "" until --log-format is given
		"analyze --format":    "text",                                     // a list of the values given, for the note on a log's format
		"sweep --budget":      "none: runs last the scenario's duration",
		"run --engine-cores":  runEngineCores, // 1 until --engine-cores is given; sweep's and capacity's is 1
	}
	for _, c := range commands {
		fs, _, _ := c.flagSet()
		fs.VisitAll(func(f *pflag.Flag) {
			name := c.name + " --" + f.Name
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s: a backquote in %q", name, f.Usage)
			}
			if strings.Contains(f.Usage, "default") {
				t.Errorf("%s: the usage %q states a default; set the flag's DefValue", name, f.Usage)
			}
			want, ok := words[name]
			if !ok {
				want, ok = words["--"+f.Name]
			}
			if !ok {
				want = f.Value.String()
			}
			if f.DefValue != want {
				t.Errorf("%s: help shows the default %q, want %q", name, f.DefValue, want)
			}
		})
		for _, line := range strings.Split(fs.FlagUsages(), "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s: two defaults in %q", c.name, line)
			}
		}
	}
	if got := defaultOutDir("orders", "capacity"); got != "out/orders-capacity" {
		t.Errorf("defaultOutDir = %q", got)
	}
}

// TestUsageHints: a command line shardsim cannot take exits 2 with a message that ends by
// pointing at the help that would have helped.
func TestUsageHints(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the message's end
	}{
		{[]string{"run", "--bogus"}, "unknown flag: --bogus; see 'shardsim run --help'"},
		{[]string{"sweep", "-x"}, "see 'shardsim sweep --help'"},
		{[]string{"capacity", "--slo"}, "flag needs an argument: --slo; see 'shardsim capacity --help'"},
		{[]string{"list", "extra"}, "list takes no arguments; see 'shardsim list --help'"},
		{[]string{"version", "extra"}, "see 'shardsim version --help'"},
		{[]string{"explain", "a", "b"}, "see 'shardsim explain --help'"},
		{[]string{"validate"}, "see 'shardsim validate --help'"},
		{[]string{"rn"}, `unknown command "rn" (did you mean "run"?); see 'shardsim --help'`},
		{[]string{"cap"}, `(did you mean "capacity"?); see 'shardsim --help'`},
		{[]string{"help", "explian"}, `unknown command "explian" (did you mean "explain"?); see 'shardsim --help'`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" (the commands are run, list, validate, explain, sweep, capacity, merge, analyze, fit, version); see 'shardsim --help'`},
		{[]string{"run", "--durration", "3s"}, "unknown flag: --durration (did you mean --duration?); see 'shardsim run --help'"},
		{[]string{"capacity", "--sl=x"}, "unknown flag: --sl (did you mean --slo?); see 'shardsim capacity --help'"},
		// A value the flag's type refuses: the flag and what it takes, not the parser's words.
		{[]string{"run", "--seed", "abc"}, `--seed "abc": want an integer; see 'shardsim run --help'`},
		{[]string{"run", "--seed", "99999999999999999999"}, `--seed "99999999999999999999": out of range for an integer; see 'shardsim run --help'`},
	} {
		code, _, stderr := call(t, tc.args...)
		if code != 2 || !strings.HasSuffix(stderr, tc.want+"\n") {
			t.Errorf("shardsim %s: exit %d, stderr %q; want 2 and a message ending %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// TestHelpExamples: every example in the help is a command line a POSIX shell passes to
// shardsim as written (no unquoted < or parenthesis) and that its command's flags parse.
func TestHelpExamples(t *testing.T) {
	for _, c := range commands {
		if len(c.examples) == 0 {
			t.Errorf("%s has no example", c.name)
		}
		for _, ex := range c.examples {
			words, err := shellWords(ex)
			if err != nil {
				t.Errorf("%s: %v", ex, err)
				continue
			}
			if len(words) < 2 || words[0] != "shardsim" || words[1] != c.name {
				t.Errorf("%s: does not start with shardsim %s", ex, c.name)
				continue
			}
			fs, _, _ := c.flagSet()
			if err := fs.Parse(words[2:]); err != nil {
				t.Errorf("%s: %v", ex, err)
			}
		}
	}
}

func TestShellWords(t *testing.T) {
	for in, want := range map[string]string{
		`a 'b<c' "d e"`:           `[a b<c d e]`,
		`--set 'k=["x"]'`:         `[--set k=["x"]]`,
		`x "a\"b" c\ d`:           `[x a"b c d]`,
		`--slo create:p99<50ms`:   `error`,
		`--variant (salt 4`:       `error`,
		`echo 'open`:              `error`,
		`scenarios/*.toml a;b`:    `error`,
		`scenarios/*.toml --x=$y`: `error`,
	} {
		words, err := shellWords(in)
		got := fmt.Sprint(words)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("shellWords(%q) = %s (%v), want %s", in, got, err, want)
		}
	}
}

// shellWords splits a command line as a POSIX shell would, for the quoting the help's
// examples use: single quotes, double quotes with backslash escapes, and backslashes. A
// character the shell would act on rather than pass (redirection, a pipe, a subshell, a
// variable) outside quotes is an error; glob characters pass, as the shell passes a pattern
// that matches nothing.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed single quote")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if strings.ContainsRune("$`", rune(line[i])) {
					return nil, fmt.Errorf("%q inside double quotes: the shell expands it", line[i])
				}
				if line[i] == '\\' && i+1 < len(line) && strings.ContainsRune("\"\\$`", rune(line[i+1])) {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, fmt.Errorf("unclosed double quote")
			}
			inWord = true
		case ch == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case strings.IndexByte("<>|;&()$`{}!#", ch) >= 0:
			return nil, fmt.Errorf("unquoted %q: the shell acts on it", ch)
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// TestUnwritableOut: an -o that cannot be made says which directory refused and why,
// before anything runs (a directory of /proc exists but makes no files; the message used
// to read "/proc cannot be written (no such file or directory)").
func TestUnwritableOut(t *testing.T) {
	if st, err := os.Stat("/proc/self"); err != nil || !st.IsDir() {
		t.Skip("no /proc here")
	}
	code, _, stderr := call(t, "run", "quickstart", "-o", "/proc/nope", "--duration", "1s", "-q")
	want := "shardsim: -o /proc/nope: /proc, where /proc/nope would be made, accepts no new files (a virtual file system such as /proc or /sys?): choose a directory on a disk\n"
	if code != 2 || !strings.HasSuffix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
