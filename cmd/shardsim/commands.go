package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/scenarios"
)

// A command is one subcommand: what its help says, and how its flags are made. Help and
// docs/cli.md are both written from this table and the flag sets it builds, so neither can
// fall behind the code.
type command struct {
	name     string
	operands string   // what follows the name in the list of commands: "[SCENARIO]"
	usage    string   // what follows the name in the command's usage line
	summary  string   // one line for the list of commands
	about    string   // a sentence or two for the command's own help
	examples []string // command lines, quoted for a POSIX shell
	// setup registers the command's flags on fs and returns the function that runs the
	// command once fs has parsed the arguments.
	setup func(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error
}

// commands are the subcommands, in the order the help lists them.
var commands = []*command{
	{
		name: "run", operands: "[SCENARIO]", usage: "[SCENARIO] [flags]",
		summary: "run every variant and write the report (default scenario: " + scenarios.Default + ")",
		about: "Runs every variant of SCENARIO (a .toml path or a built-in name; default " + scenarios.Default + "),\n" +
			"writes the report, tables and charts to the output directory, and prints a summary.",
		examples: []string{
			"shardsim run black-friday",
			"shardsim run quickstart --variant uniform --duration 1m -f markdown",
			"shardsim run quickstart --set cluster.cores=4 --set 'warmup=\"1m\"' -o out/quickstart-4-cores",
		},
		setup: setupRun,
	},
	{
		name: "list", usage: "[flags]",
		summary:  "the built-in scenarios, one line each",
		about:    "Lists the built-in scenarios, which every command takes by name, one line each.",
		examples: []string{"shardsim list"},
		setup:    setupList,
	},
	{
		name: "validate", operands: "FILE...", usage: "FILE... [flags]",
		summary: "check scenario files without running them",
		about: "Checks each scenario file (or built-in name) without running it, and says how many\n" +
			"requests and how much memory a run of it would take, and how many subrequests (a scan\n" +
			"fans out to many) and how long on one core at the engine's measured rate. A warning on\n" +
			"stderr names each node the utilization law puts past its cores, and the stream that\n" +
			"offers the most work (a cost a thousand times off, \"0.6s\" for \"0.6ms\", shows here);\n" +
			"the exit status stays 0.",
		examples: []string{
			"shardsim validate my-cluster.toml",
			"shardsim validate scenarios/*.toml",
		},
		setup: setupValidate,
	},
	{
		name: "explain", operands: "[SCENARIO]", usage: "[SCENARIO] [flags]",
		summary: "the predicted routing, fan-out and load per variant, without simulating",
		about: "Shows per variant the key design, shards per node, each stream's fan-out, and the\n" +
			"offered load of every shard and node by the utilization law, before any simulation:\n" +
			"the mean with the run's routing, the peak as the highest at any moment of the run, with\n" +
			"the routing of that moment's window, and the moment. Each node is listed with its cores\n" +
			"and shards; a warning names a node that holds two or more shards predicted to make it hot,\n" +
			"and each node predicted past its cores or past the 85% ceiling capacity and sweep hold\n" +
			"to, with the stream that offers the most work (and a hint when its cost looks a\n" +
			"thousand times off).",
		examples: []string{
			"shardsim explain black-friday",
			"shardsim explain iot-timeseries --variant '(salt 4' --set keyspace.salt=64 -f json",
		},
		setup: setupExplain,
	},
	{
		name: "sweep", operands: "[SCENARIO]", usage: "[SCENARIO] --vary KEY=V1,V2,... [--vary ...] [flags]",
		summary: "run every combination of the keys varied with --vary",
		about: "Runs every combination of the varied keys, for every variant, with --replications\n" +
			"seeds each, in parallel; writes sweep.csv, sweep.json and charts of p99 and fan-out\n" +
			"against the first varied key. Streams are addressed by name: streams.NAME.rate.",
		examples: []string{
			"shardsim sweep salt-buckets --vary keyspace.salt=1,4,16,64 -r 3 --slo 'ingest:p99<20ms'",
			"shardsim sweep quickstart --variant 0 --vary cluster.nodes=6,12 --vary streams.get_profile.rate=4000,8000",
			"shardsim sweep salt-buckets --vary keyspace.salt=1,4,16,64 -r 3 --slo 'ingest:p99<20ms' --shard 0/4 --resume",
		},
		setup: func(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error { return setupExplore(fs, "sweep") },
	},
	{
		name: "capacity", operands: "[SCENARIO]", usage: "[SCENARIO] --slo 'STREAM:p99<50ms' [--slo ...] [flags]",
		summary: "the largest multiple of the load at which every --slo holds",
		about: "Finds, per variant, the largest multiple of all the scenario's rates (load_factor) at\n" +
			"which every SLO holds, errors stay under --max-errors and the busiest node stays under\n" +
			"--max-utilization (0.85) at peak, by bisection to 1%. With --replications R the answer\n" +
			"is the multiple every seed meets (--require all); it also searches each seed alone (the\n" +
			"answer's spread) and the means, then checks the answer at a fresh seed. With\n" +
			"--vary cluster.nodes=4,8,12 it answers \"how many nodes for this load\".",
		examples: []string{
			"shardsim capacity orders --slo 'create_order:p99<50ms' --slo 'create_order:errors<0.5%'",
			"shardsim capacity orders --slo 'create_order:p99<50ms' --vary cluster.nodes=2,3,4 -r 3",
		},
		setup: func(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error { return setupExplore(fs, "capacity") },
	},
	{
		name: "merge", operands: "DIR...", usage: "DIR... [flags]",
		summary: "put together a sweep or capacity search that workers ran in parts (--shard)",
		about: "Reads the manifest and the work items that sweep or capacity runs with --shard K/N wrote\n" +
			"under their -o directories (one shared directory, or one per worker), checks that every\n" +
			"item is there exactly once, belongs to the same command and was computed by the same\n" +
			"build of shardsim, and writes the outputs the command would have written on one machine,\n" +
			"byte for byte, reading the items a few at a time. Missing items are named with the\n" +
			"workers to rerun (Slurm array tasks, Kubernetes completion indexes). Without -o, a\n" +
			"single DIR receives them. See docs/cluster.md.",
		examples: []string{
			"shardsim merge out/salt-buckets-sweep",
			"shardsim merge out/worker-0 out/worker-1 out/worker-2 -o out/salt-sweep",
		},
		setup: setupMerge,
	},
	{
		name: "analyze", operands: "TRACE", usage: "TRACE [--log-format F] [--key PART,... --scheme S --shards N --salt N] [flags]",
		summary: "describe an access log for a shard-key review, and route it through a candidate design",
		about: "Reads an access log (csv, twitter or kvcache; plain, .gz or .zst) in one pass and bounded\n" +
			"memory: records, time span, operation mix, rate over time, distinct keys, the top keys\n" +
			"and their shares, a fitted Zipf exponent, and whether each key part grows with time.\n" +
			"With --key, it routes every record through that design, as a simulation would, and\n" +
			"prints each shard's share of writes and reads. See docs/traces.md.",
		examples: []string{
			"shardsim analyze replay-demo --key id --shards 8",
			"shardsim analyze testdata/traces/twitter.log.zst --log-format twitter --delimiter : --names ns,kind,id --key 'hash(id, 16)' --scheme range -f json",
		},
		setup: setupAnalyze,
	},
	{
		name: "fit", operands: "TRACE", usage: "TRACE -o FILE [--log-format F] [flags]",
		summary: "write a synthetic scenario that reproduces an access log's rate, op mix and key popularity",
		about: "Analyzes the log as analyze does and writes a scenario without it: read and write streams\n" +
			"whose schedules follow the log's rate over time, and a field per key part (--delimiter,\n" +
			"--names): time-ordered for a part that grows with time, categorical for a few values,\n" +
			"else a Zipf law fitted to the part (uniform when nothing stands out); the top values are\n" +
			"listed in a comment. Scale it with --set load_factor=3, change its design, share it.",
		examples: []string{
			"shardsim fit testdata/traces/kvcache.csv.gz --log-format kvcache -o out/kvcache.toml",
			"shardsim fit testdata/traces/access.csv --delimiter : --names ns,kind,id -o out/access.toml",
		},
		setup: setupFit,
	},
	{
		name: "version", usage: "[flags]",
		summary:  "print the version",
		about:    "Prints the version of shardsim and of the Go it was built with.",
		examples: []string{"shardsim version"},
		setup:    setupVersion,
	},
}

// exitStatuses are what Main returns, for the help and docs/cli.md.
var exitStatuses = []struct {
	code    int
	meaning string
}{
	{0, "success, and help asked for (--help, -h, shardsim help)"},
	{1, "a failure while running: an interrupted run, a file that could not be written once the run had begun"},
	{2, "a usage or scenario error: an unknown command or flag, a bad value, a scenario that does not load, an output directory that cannot be made or written (checked before anything runs)"},
}

const generalHelp = `shardsim simulates a sharded database cluster and shows where load concentrates.

Usage: shardsim COMMAND [ARGUMENTS] [flags]

Commands:
%s
SCENARIO is a path to a .toml file or the name of a built-in scenario (see shardsim list).
Run 'shardsim COMMAND --help' for a command's flags and examples.

Exit status:
%s`

// writeGeneralHelp writes the list of commands.
func writeGeneralHelp(w io.Writer) {
	type line struct{ left, right string }
	var lines []line
	for _, c := range commands {
		lines = append(lines, line{strings.TrimSpace(c.name + " " + c.operands), c.summary})
	}
	lines = append(lines, line{"help [COMMAND]", "this help, or a command's: the same as shardsim COMMAND --help"})
	width := 0
	for _, l := range lines {
		width = max(width, len(l.left))
	}
	var list, exits strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&list, "  %-*s  %s\n", width, l.left, l.right)
	}
	for _, e := range exitStatuses {
		fmt.Fprintf(&exits, "  %d  %s\n", e.code, e.meaning)
	}
	fmt.Fprintf(w, generalHelp, list.String(), exits.String())
}

// flagSet builds the command's flags, --help last, and returns them with the function that
// runs the command and the --help value. Nothing is printed while parsing: errors are
// returned, and help is written by writeHelp.
func (c *command) flagSet() (fs *pflag.FlagSet, exec func(stdout, stderr io.Writer) error, help *bool) {
	fs = pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	exec = c.setup(fs)
	help = fs.BoolP("help", "h", false, "print this help and exit")
	return fs, exec, help
}

// writeHelp writes the command's help: usage line, what it does, examples and flags.
func (c *command) writeHelp(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: shardsim %s %s\n\n%s\n\nExamples:\n", c.name, c.usage, c.about)
	for _, e := range c.examples {
		fmt.Fprintf(w, "  %s\n", e)
	}
	fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
}

// execute parses the command's arguments and runs it, or writes its help to stdout when
// --help is given.
func (c *command) execute(args []string, stdout, stderr io.Writer) error {
	fs, exec, help := c.flagSet()
	if err := fs.Parse(args); err != nil {
		msg := err.Error()
		if m := invalidValue(err); m != "" {
			msg = m
		}
		if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
			if near := nearFlag(fs, name); near != "" {
				msg += fmt.Sprintf(" (did you mean --%s?)", near)
			}
		}
		return usagef("%s; %s", msg, c.hint())
	}
	if *help {
		c.writeHelp(stdout, fs)
		return nil
	}
	return exec(stdout, stderr)
}

// invalidValue says what is wrong with a flag's value that its type's parser refused,
// naming the flag and the kind of value it takes, without the parser's own words
// (strconv.ParseInt: parsing "abc": invalid syntax); "" for another error.
func invalidValue(err error) string {
	var ive *pflag.InvalidValueError
	var ne *strconv.NumError
	if !errors.As(err, &ive) || !errors.As(err, &ne) {
		return ""
	}
	f := ive.GetFlag()
	want := map[string]string{
		"int": "an integer", "int64": "an integer", "int32": "an integer",
		"uint": "a whole number", "uint64": "a whole number",
		"float64": "a number", "float32": "a number",
		"bool": "true or false", "duration": "a duration such as 30s or 2m",
	}[f.Value.Type()]
	if want == "" {
		want = "a " + f.Value.Type()
	}
	problem := "want " + want
	if errors.Is(ne.Err, strconv.ErrRange) {
		problem = "out of range for " + want
	}
	return fmt.Sprintf("--%s %q: %s", f.Name, ive.GetValue(), problem)
}

// hint is the end of a message about a command line the command cannot take.
func (c *command) hint() string { return hint(c.name) }

func hint(name string) string { return fmt.Sprintf("see 'shardsim %s --help'", name) }

// argsError is a usage error in the operands of the command name, with the hint to its help.
func argsError(name, format string, args ...any) error {
	return usagef("%s; %s", fmt.Sprintf(format, args...), hint(name))
}

// lookup finds a command by name (nil: no such command).
func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// unknownCommand is the error for a command that does not exist, naming the near ones.
func unknownCommand(name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if near := nearCommands(name); len(near) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, " or "))
	} else {
		// Nothing near: the whole list is short enough to be the suggestion.
		var names []string
		for _, c := range commands {
			names = append(names, c.name)
		}
		msg += fmt.Sprintf(" (the commands are %s)", strings.Join(names, ", "))
	}
	return usagef("%s; see 'shardsim --help'", msg)
}

// nearCommands returns the commands name may be a slip for: those it begins (at least two
// letters), else those nearest by edit distance, when at most 2 edits away.
func nearCommands(name string) []string {
	var near []string
	best := 2 // more than 2 edits is another word, not a slip
	for _, c := range commands {
		if len(name) >= 2 && strings.HasPrefix(c.name, name) {
			return []string{strconv.Quote(c.name)}
		}
		switch d := tomlx.EditDistance(strings.ToLower(name), c.name); {
		case d < best:
			near, best = []string{strconv.Quote(c.name)}, d
		case d == best:
			near = append(near, strconv.Quote(c.name))
		}
	}
	return near
}

// nearFlag returns the flag of fs that name (an unknown long flag, without its dashes) is
// most likely a slip for: the one it begins (at least three letters), else the nearest by
// edit distance when at most 2 edits away; "" when none is near.
func nearFlag(fs *pflag.FlagSet, name string) string {
	name, _, _ = strings.Cut(name, "=")
	best, bestD := "", 3
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := tomlx.EditDistance(strings.ToLower(name), f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = 0
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}
