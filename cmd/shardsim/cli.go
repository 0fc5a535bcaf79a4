package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/runs/runner"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/trace"
	"github.com/shardsim/shardsim/units"
)

// version is the release; `go build -ldflags "-X main.version=..."` may replace it.
var version = "0.1.0-dev"

// usageError is a problem with the command line or the scenario: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// run is the whole command line as a function, so tests can call it.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		writeGeneralHelp(stderr)
		return usagef("no command given")
	}
	switch name, rest := args[0], args[1:]; name {
	case "--version":
		return lookup("version").execute(rest, stdout, stderr)
	case "help", "-h", "--help":
		if len(rest) == 0 || len(rest) == 1 && slices.Contains([]string{"help", "-h", "--help"}, rest[0]) {
			writeGeneralHelp(stdout)
			return nil
		}
		c := lookup(rest[0])
		switch {
		case c == nil:
			return unknownCommand(rest[0])
		case len(rest) > 1:
			return usagef("help takes one command (got %s); see 'shardsim --help'", strings.Join(rest, " "))
		}
		fs, _, _ := c.flagSet()
		c.writeHelp(stdout, fs)
		return nil
	default:
		c := lookup(name)
		if c == nil {
			return unknownCommand(name)
		}
		return c.execute(rest, stdout, stderr)
	}
}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return runtime.Version()
}

// common holds the flags shared by the commands that run scenarios.
type common struct {
	out, format, duration string
	chartFormat           string
	seed                  int64
	sets, variants        []string
	parallel              int
	engineCores           int // cores one run may use (sim.RunOn), 1 by default
	noCharts, quiet       bool
	noHTML                bool   // run: skip report.html
	series                string // run: the format of the per-window series (seriesFormat)
	force                 bool
	cpuprofile            string
	flags                 *pflag.FlagSet // the command's flags, to tell a given --seed from the default
}

// register adds the flags of the commands that run scenarios; outDefault is the output
// directory used without -o, as the help shows it.
func (c *common) register(fs *pflag.FlagSet, outDefault string) {
	textVar(fs, &c.out, "out", "o", "dir", "output directory")
	showDefault(fs, "out", outDefault)
	fs.StringVarP(&c.format, "format", "f", "text", "what goes to stdout: text, markdown, json or csv")
	c.registerScenario(fs, "run only this variant")
	fs.IntVarP(&c.parallel, "parallel", "j", runtime.NumCPU(), "variants run at once")
	showDefault(fs, "parallel", "the number of CPUs")
	fs.IntVar(&c.engineCores, "engine-cores", 1, "cores one run may use, its nodes split among them (results do not change)")
	fs.BoolVar(&c.noCharts, "no-charts", false, "write no charts")
	fs.StringVar(&c.chartFormat, "chart-format", "png", "chart files: png or svg")
	fs.BoolVarP(&c.quiet, "quiet", "q", false, "no progress on stderr")
	fs.BoolVar(&c.force, "force", false, "write into an output directory that holds another scenario's results")
	textVar(fs, &c.cpuprofile, "cpuprofile", "", "file", "write a CPU profile of the command to this file, for go tool pprof")
}

// registerScenario adds the flags that change the scenario itself: --seed, --duration, --set
// and --variant (whose help starts with selects).
func (c *common) registerScenario(fs *pflag.FlagSet, selects string) {
	c.flags = fs
	fs.Int64Var(&c.seed, "seed", -1, "random seed")
	showDefault(fs, "seed", "the scenario's")
	textVar(fs, &c.duration, "duration", "", "duration", "simulated time, e.g. 30m")
	showDefault(fs, "duration", "the scenario's")
	listVar(fs, &c.sets, "set", "key=value", "override a scenario key, the value in TOML syntax; variants[NAME].KEY or variants[INDEX].KEY changes one variant (repeatable)")
	listVar(fs, &c.variants, "variant", "name", selects+": its name, a prefix unique to it, or its index from 0 (repeatable)")
}

// defaultOutDir is the output directory without -o: out/NAME for run, out/NAME-KIND for
// sweep and capacity (kind).
func defaultOutDir(name, kind string) string {
	if kind != "" {
		name += "-" + kind
	}
	return filepath.Join("out", name)
}

// startCPUProfile starts the CPU profile --cpuprofile asks for, and returns the function
// that ends it and closes its file (a no-op without the flag).
func (c *common) startCPUProfile() (func(), error) {
	if c.cpuprofile == "" {
		return func() {}, nil
	}
	f, err := os.Create(c.cpuprofile)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// options turns the flags into scenario load options.
func (c *common) options() (scenarios.Options, error) {
	switch c.format {
	case "text", "markdown", "json", "csv":
	default:
		return scenarios.Options{}, usagef("--format %q: want text, markdown, json or csv", c.format)
	}
	if c.chartFormat != "png" && c.chartFormat != "svg" && c.chartFormat != "" {
		return scenarios.Options{}, usagef("--chart-format %q: want png or svg", c.chartFormat)
	}
	if c.parallel < 1 {
		return scenarios.Options{}, usagef("--parallel %d: want at least 1", c.parallel)
	}
	if c.engineCores < 0 || c.flags != nil && c.flags.Changed("engine-cores") && c.engineCores < 1 { // 0: a command without the flag
		return scenarios.Options{}, usagef("--engine-cores %d: want at least 1", c.engineCores)
	}
	opts := scenarios.Options{Variants: c.variants, Sets: append([]string(nil), c.sets...), Parallel: c.parallel, EngineCores: c.engineCores}
	if c.flags != nil && c.flags.Changed("seed") {
		if c.seed < 0 {
			return scenarios.Options{}, usagef("--seed %d: want a number >= 0", c.seed)
		}
		opts.Overrides = append(opts.Overrides, scenarios.Override{Flag: fmt.Sprintf("--seed %d", c.seed), Key: "seed", Value: fmt.Sprint(c.seed)})
	}
	if c.duration != "" {
		opts.Overrides = append(opts.Overrides, scenarios.Override{Flag: "--duration " + c.duration, Key: "duration", Value: fmt.Sprintf("%q", c.duration), ScaleWarmup: true})
	}
	return opts, nil
}

func setupRun(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	c := new(common)
	c.register(fs, defaultOutDir("<scenario-name>", ""))
	showDefault(fs, "engine-cores", runEngineCores)
	fs.BoolVar(&c.noHTML, "no-html", false, "write no report.html")
	fs.StringVar(&c.series, "series", "auto", "per-window series files: csv, parquet, both, or auto (parquet when a variant has more than 2 million shard-windows, else csv)")
	return func(stdout, stderr io.Writer) error { return runScenario(fs, c, stdout, stderr) }
}

// runScenario is the run command, once its flags are parsed: it loads the scenario, runs
// its variants, and writes the summary to stdout and the report's files into the output
// directory, which it swaps in whole once every file is there (outdir.go).
func runScenario(fs *pflag.FlagSet, c *common, stdout, stderr io.Writer) error {
	sc, series, err := c.loadRun(fs, stderr)
	if err != nil {
		return err
	}
	dir := c.out
	if dir == "" {
		dir = defaultOutDir(sc.Name, "")
	}
	out, err := claimOut(dir, sc.Name, c.force)
	if err != nil {
		return err
	}
	defer out.close()
	// Every file goes to the staging directory; commit swaps it with dir (outdir.go).
	stage := out.path()
	stop, done, err := c.interruptible()
	if err != nil {
		return err
	}
	defer done()
	// The series files are written as the variants finish, while later ones still run.
	desc := describe(sc, nil)
	sw := report.StartSeries(stage, desc, len(sc.Variants), series)
	progressFn, finish := progress(stderr, c.quiet, "run variants")
	runs, warns, err := runVariants(sc, desc, runner.Options{Parallel: c.parallel, Stop: stop, Every: true, Progress: progressFn}, c.variantCores(sc), stage, sw)
	finish()
	defer closeSinks(runs)
	defer sw.Abort() // on an early return, the series files stop before their spools go
	if err != nil {
		return err
	}
	for _, ws := range warns {
		for _, w := range ws {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	c.oneCoreNotes(stderr, runs)
	// The charts are drawn while the summary, the tables and the other files are made: they
	// need only the runs, and drawing them is most of what charts cost.
	charts, waitCharts := c.drawCharts(stage, desc, runs)
	defer waitCharts() // no chart is still being written once the command returns
	sum := report.Summarize(desc, runs)
	text, err := c.summaryText(sum)
	if err != nil {
		return err
	}
	paths, err := c.writeReport(sw, desc, runs, sum, charts)
	if err != nil {
		return err
	}
	if err := waitCharts(); err != nil {
		return err
	}
	if _, err := stdout.Write(text); err != nil {
		return err
	}
	written := paths
	for _, ch := range charts {
		written = append(written, ch.File)
	}
	closeSinks(runs) // their spools are in the staging directory: none may follow it
	if err := out.commit(written); err != nil {
		return err
	}
	if sum.Partial {
		return fmt.Errorf("interrupted: partial results, marked as such, are in %s", dir)
	}
	c.wroteRun(stderr, dir, len(paths), len(charts))
	return nil
}

// loadRun checks run's arguments and flags and loads the scenario, printing the loader's
// notes; it returns the scenario and the series format to write (seriesFormat).
func (c *common) loadRun(fs *pflag.FlagSet, stderr io.Writer) (*scenarios.Scenario, report.Series, error) {
	if fs.NArg() > 1 {
		return nil, 0, argsError("run", "run takes one scenario (got %d: %s)", fs.NArg(), strings.Join(fs.Args(), " "))
	}
	ref := scenarios.Default
	if fs.NArg() == 1 {
		ref = fs.Arg(0)
	}
	opts, err := c.options()
	if err != nil {
		return nil, 0, err
	}
	if _, ok := report.ParseSeries(c.series); !ok && c.series != "auto" {
		return nil, 0, usagef("--series %q: want csv, parquet, both or auto", c.series)
	}
	sc, err := scenarios.Load(ref, opts)
	if err != nil {
		return nil, 0, usageError{err}
	}
	printNotes(stderr, sc)
	if c.cpuprofile != "" {
		if err := checkOutFile("--cpuprofile", c.cpuprofile, sc.Inputs()...); err != nil {
			return nil, 0, err
		}
	}
	return sc, seriesFormat(c.series, sc), nil
}

// interruptible wires SIGINT and SIGTERM to the stop function it returns and starts the
// CPU profile --cpuprofile asks for; done undoes both.
func (c *common) interruptible() (stop func() bool, done func(), err error) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	endProfile, err := c.startCPUProfile()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return func() bool { return ctx.Err() != nil }, func() { endProfile(); cancel() }, nil
}

// drawCharts starts drawing the run's charts into stage (none with --no-charts) and
// returns them with the function that waits until they are drawn, once.
func (c *common) drawCharts(stage string, desc *metrics.Scenario, runs []report.Run) ([]report.Chart, func() error) {
	done := make(chan error, 1)
	var charts []report.Chart
	if c.noCharts {
		done <- nil
	} else {
		plan := report.PlanCharts(c.chartFormat, desc, runs)
		charts = plan.Charts
		go func() { done <- plan.Render(stage, c.parallel) }()
	}
	return charts, sync.OnceValue(func() error { return <-done })
}

// summaryText is the summary as --format asks for it on stdout.
func (c *common) summaryText(sum *report.Summary) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch c.format {
	case "json":
		err = report.JSON(&buf, sum)
	case "markdown":
		report.Markdown(&buf, sum)
	case "csv":
		err = report.CSV(&buf, sum)
	default:
		report.Text(&buf, sum)
	}
	return buf.Bytes(), err
}

// writeReport writes the run's files into sw's staging directory (the series files are
// sw's, written as the variants finished), report.html too unless --no-html, and returns
// their paths.
func (c *common) writeReport(sw *report.SeriesWriter, desc *metrics.Scenario, runs []report.Run, sum *report.Summary, charts []report.Chart) ([]string, error) {
	stage := sw.Dir()
	paths, err := report.WriteFilesAfter(sw, desc, runs, sum, charts)
	if err != nil || c.noHTML {
		return paths, err
	}
	var links []string
	for _, p := range paths {
		links = append(links, filepath.Base(p))
	}
	p, err := report.WriteHTML(stage, desc, runs, sum, links)
	if err != nil {
		return nil, err
	}
	return append(paths, p), nil
}

// wroteRun says, unless -q, what run wrote where and which file to open.
func (c *common) wroteRun(stderr io.Writer, dir string, files, charts int) {
	if c.quiet {
		return
	}
	open := "report.md"
	if !c.noHTML {
		open = report.HTMLFile
	}
	fmt.Fprintf(stderr, "wrote %d files and %d charts to %s; open %s\n", files, charts, dir, filepath.Join(dir, open))
}

// oneCoreNotes says on stderr which variants ran on one core although --engine-cores
// offered several, and why (sim.OneCoreReason): the results are the same either way, the
// time is not. Cores given by default are not noted.
func (c *common) oneCoreNotes(stderr io.Writer, runs []report.Run) {
	if c.quiet || c.engineCores <= 1 || c.flags == nil || !c.flags.Changed("engine-cores") {
		return
	}
	for _, r := range runs {
		if r.Result.OneCore != "" {
			fmt.Fprintf(stderr, "note: %s ran on one core of %d: %s\n", r.Variant.Name, c.engineCores, r.Result.OneCore)
		}
	}
}

// Without --engine-cores, run shares the machine out: each variant that runs at once
// gets an equal part of the processors (GOMAXPROCS), at most autoCoresMax, if it is
// expected to take autoSplitSeconds or more on one core (compile.Work.Seconds; splitting
// a shorter one costs more in setting up its workers than it saves) and the memory bound
// holds with every variant so split (compile.RunMemory). Past four cores a split run
// gained nothing where it was measured, and took more CPU and memory with each core
// (docs/performance.md).
const (
	autoCoresMax     = 4
	autoSplitSeconds = 1.0
)

// runEngineCores is run's --engine-cores default as its help says it (variantCores).
var runEngineCores = fmt.Sprintf("a share of the machine: its CPUs over the variants running at once, at most %d (1 for a run expected to take under %g s, or whose copies would pass the memory bound)", autoCoresMax, autoSplitSeconds)

// variantCores is how many cores each of sc's variants may use: --engine-cores when
// given, else the machine's share (see autoCoresMax).
func (c *common) variantCores(sc *scenarios.Scenario) []int {
	cores := make([]int, len(sc.Variants))
	if c.flags != nil && c.flags.Changed("engine-cores") {
		for i := range cores {
			cores[i] = c.engineCores
		}
		return cores
	}
	running := max(1, min(c.parallel, len(sc.Variants)))
	share := min(autoCoresMax, runtime.GOMAXPROCS(0)/running)
	specs := make([]*scenario.Resolved, len(sc.Variants))
	held := make([]float64, len(sc.Variants))
	for i, v := range sc.Variants {
		specs[i], held[i] = v.Spec, v.Work.Held()
	}
	if _, problem := compile.RunMemory(specs, c.parallel, share, held); share < 2 || problem != "" {
		share = 1
	}
	for i, v := range sc.Variants {
		cores[i] = 1
		if v.Work.Seconds >= autoSplitSeconds {
			cores[i] = share
		}
	}
	return cores
}

// seriesFormat is the format --series asks for (checked by runScenario); auto is Parquet
// when a variant of sc has more than scenario.ParquetShardCells shard-windows, where shards.csv
// would pass about 100 MB, and CSV otherwise (docs/outputs.md).
func seriesFormat(flag string, sc *scenarios.Scenario) report.Series {
	if s, ok := report.ParseSeries(flag); ok {
		return s
	}
	for _, v := range sc.Variants {
		if v.Spec != nil && v.Spec.ShardWindows() > scenario.ParquetShardCells {
			return report.SeriesParquet
		}
	}
	return report.SeriesCSV
}

// mostRequests is the most requests one of the scenario's variants issues.
func mostRequests(sc *scenarios.Scenario) float64 {
	most := 0.0
	for _, v := range sc.Variants {
		if v.Spec != nil {
			most = max(most, compile.Requests(v.Spec))
		}
	}
	return most
}

// workSentence says what the costliest of sc's variants asks of the engine, predicted
// (compile.EstimateWork): its subrequests and its time on one core at the engine's measured
// rate; "" when no variant has an estimate.
func workSentence(sc *scenarios.Scenario) string {
	var top *scenarios.Variant
	for _, v := range sc.Variants {
		if v.Work != nil && (top == nil || v.Work.Seconds > top.Work.Seconds) {
			top = v
		}
	}
	if top == nil {
		return ""
	}
	took := units.Seconds(top.Work.Seconds, units.Words)
	if took != "under a second" {
		took = "about " + took
	}
	largest := "its largest variant makes"
	if len(sc.Variants) == 1 {
		largest = "it makes"
	}
	return fmt.Sprintf("; %s about %s subrequests (at most %s), %s of one core %s",
		largest, units.Approx(top.Work.Subrequests), units.Approx(compile.MaxWork), took, compile.EngineRate(top.Shards))
}

// humanBytes writes a size for people: 220 MB, 4.0 GB.
func humanBytes(b float64) string {
	if b >= 1<<30 {
		return strconv.FormatFloat(b/(1<<30), 'f', 1, 64) + " GB"
	}
	return strconv.FormatFloat(math.Ceil(b/(1<<20)), 'f', 0, 64) + " MB"
}

// printNotes writes what the loader noted about command-line values, once each.
func printNotes(stderr io.Writer, sc *scenarios.Scenario) {
	for _, n := range sc.Notes {
		fmt.Fprintln(stderr, n)
	}
}

// claimDir checks, before anything runs, that dir may receive name's results: it can be
// written (or made), and it does not exist, is empty, or holds results of the same
// scenario; --force overrides the last. It leaves nothing behind.
func claimDir(dir, name string, force bool) error {
	if err := writable(dir); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	// A lock nobody holds is all a command killed in a directory it had just made leaves:
	// such a directory counts as empty (lockDir takes a lock over when its holder is gone).
	ents = slices.DeleteFunc(ents, func(e os.DirEntry) bool { return e.Name() == lockFile })
	if err != nil || len(ents) == 0 || force {
		return nil // missing (it will be made), empty, or forced
	}
	b, err := os.ReadFile(filepath.Join(dir, markerFile))
	holds, _, _ := strings.Cut(string(b), "\n") // the first line names the results
	switch {
	case err != nil:
		return usagef("%s exists and does not hold shardsim results; choose another -o or add --force", dir)
	case strings.TrimSpace(holds) != name:
		return usagef("%s holds the results of %q; choose another -o or add --force to replace them with %q", dir, strings.TrimSpace(holds), name)
	}
	return nil
}

// writable reports, as a usage error naming -o, why dir could not receive files: a file
// in its place or on its path, or a directory that cannot be written. A missing dir is
// judged by its nearest existing ancestor, where it would be made.
func writable(dir string) error {
	probe := dir
	for {
		st, err := os.Stat(probe)
		if err == nil {
			if !st.IsDir() {
				if probe == dir {
					return usagef("-o %s: is a file, not a directory", dir)
				}
				return usagef("-o %s: %s is a file, so the directory cannot be made", dir, probe)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return usagef("-o %s: %v", dir, err)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return nil
		}
		probe = parent
	}
	f, err := os.CreateTemp(probe, ".shardsim-probe-*")
	if err != nil {
		return usagef("-o %s: %s", dir, unwritable(dir, probe, err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// unwritable says why no file could be made in the existing directory probe, where the
// output directory dir is or would be made, from the error of the attempt.
func unwritable(dir, probe string, err error) string {
	where := "the directory " + probe
	if probe != dir {
		where = fmt.Sprintf("%s, where %s would be made,", probe, dir)
	}
	switch {
	case errors.Is(err, syscall.EROFS):
		return where + " is on a read-only file system"
	case errors.Is(err, os.ErrPermission):
		return where + " is not writable by this user (permission denied)"
	case errors.Is(err, os.ErrNotExist):
		// The directory exists, yet a new file in it "does not exist": a file system that
		// makes no files, such as /proc or /sys.
		return where + " accepts no new files (a virtual file system such as /proc or /sys?): choose a directory on a disk"
	}
	return fmt.Sprintf("%s cannot be written (%v)", where, errors.Unwrap(err))
}

// runVariants simulates every variant, as o says (up to o.Parallel at once), variant i
// on up to cores[i] cores. Each run is independent and deterministic, so the results
// depend on neither. o.Stop interrupts every run. Each finished run is handed to sw,
// when not nil, which writes the series files while later variants run.
//
// A variant with more shard-windows than scenario.StreamShardCells (and no shard splits)
// streams its shard series (report.StreamSink), spooled in dir until the series files
// (sw's, or WriteFilesAs's) are written from the spool once the run is over; closeSinks
// removes the spools. desc is sc's description (describe), made once by the caller: the
// runs point into it.
func runVariants(sc *scenarios.Scenario, desc *metrics.Scenario, o runner.Options, cores []int, dir string, sw *report.SeriesWriter) ([]report.Run, [][]string, error) {
	streamedGC(sc)
	runs := make([]report.Run, len(sc.Variants))
	warns := make([][]string, len(sc.Variants))
	for i := range runs {
		runs[i] = report.Run{Variant: &desc.Variants[i], Result: &sim.Result{}}
	}
	// Every variant runs, so that an interrupted run still reports each one (as partial);
	// the models themselves stop early.
	o.Total = len(sc.Variants)
	loop := runner.New(o)
	err := runner.Each(loop, len(sc.Variants), func(i int) (*sim.Result, error) {
		m := sc.Variants[i].Model()
		if !sim.GrowsShards(m) && int64(len(m.ShardNode))*int64(m.Windows()) > scenario.StreamShardCells {
			k, err := report.NewStreamSink(dir, m.Windows())
			if err != nil {
				return nil, err
			}
			m.Sink = k // a streamed run is not split: build is called once (sim.OneCoreReason)
		}
		// Every model built is kept until the run ends, to read its replays' logs' fate
		// (replayWarnings); a split run builds one a worker.
		built := []*sim.Model{m}
		res := loop.SimulateOn(cores[i], runner.Reuse(m, func() *sim.Model {
			m := sc.Variants[i].Model()
			built = append(built, m)
			return m
		}))
		warns[i] = replayWarnings(sc.Variants[i].Name, built)
		return res, nil
	}, func(i int, r *sim.Result) error {
		runs[i].Result = r
		if sw != nil {
			sw.Add(i, runs[i])
		}
		return nil
	})
	return runs, warns, err
}

// replayed is a stream's arrivals replayed from a log (trace.Source).
type replayed interface {
	Err() error
	Path() string
	Lines() (lines, bad int64, quoted []trace.BadLine)
}

// replayWarnings says, for each stream of variant that replays a log, whether the run
// read the log only in part (cut short, or damaged, while it read it) and how many of
// its lines it skipped as malformed (docs/traces.md), each once: the models of a split
// run each read the whole log.
func replayWarnings(variant string, models []*sim.Model) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range models {
		for j := range m.Streams {
			src, ok := m.Streams[j].Arrivals.(replayed)
			if !ok {
				continue
			}
			name := m.Streams[j].Name
			var w string
			if err := src.Err(); err != nil {
				w = fmt.Sprintf("variant %q, stream %q: %s: %s: the run replayed the log only in part",
					variant, name, escape.Terminal(src.Path()), escape.Terminal(err.Error()))
			} else if lines, bad, quoted := src.Lines(); bad > 0 {
				// the same log for each of its streams: said once
				w = fmt.Sprintf("variant %q: %s: %s of %s lines are malformed and were skipped",
					variant, escape.Terminal(src.Path()), units.Count(bad), units.Count(lines))
				if len(quoted) > 0 {
					w += fmt.Sprintf(" (the first, line %d: %s)", quoted[0].Line, escape.Terminal(quoted[0].Why))
				}
			}
			if w != "" && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// describe is what the report knows of sc (compile.Describe), with exs, the variants'
// explanations, when given.
func describe(sc *scenarios.Scenario, exs []*scenarios.Explanation) *metrics.Scenario {
	vs := make([]*scenario.Variant, len(sc.Variants))
	for i, v := range sc.Variants {
		vs[i] = &v.Variant
	}
	return compile.Describe(&sc.Scenario, vs, exs)
}

// streamedMemoryLimit is the Go runtime's soft memory limit for a run that streams a
// variant's shard series: such runs are large, and with the default GOGC the heap grows to
// twice what it holds (a run of 10,000 nodes x 100,000 shards x 1,000 windows holds about
// 450 MB and peaked at 1.5 GB without it). GOMEMLIMIT, when set, wins.
const streamedMemoryLimit = 640 << 20

// streamedGC sets streamedMemoryLimit when a variant of sc streams.
func streamedGC(sc *scenarios.Scenario) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	for _, v := range sc.Variants {
		if v.Spec != nil && v.Spec.Streamed() {
			debug.SetMemoryLimit(streamedMemoryLimit)
			return
		}
	}
}

// closeSinks removes the spools of the runs that streamed.
func closeSinks(runs []report.Run) {
	for _, r := range runs {
		if k, ok := r.Result.Sink.(*report.StreamSink); ok {
			k.Close()
		}
	}
}

func setupList(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	return func(stdout, _ io.Writer) error {
		if fs.NArg() > 0 {
			return argsError("list", "list takes no arguments")
		}
		return listBuiltins(stdout)
	}
}

func listBuiltins(stdout io.Writer) error {
	names := scenarios.BuiltinNames()
	width := 0 // the name column fits the longest name (black-friday-migration)
	for _, name := range names {
		width = max(width, len(name))
	}
	for _, name := range names {
		sc, err := scenarios.Load(name, scenarios.Options{})
		if err != nil {
			return fmt.Errorf("built-in scenario %s: %w", name, err)
		}
		fmt.Fprintf(stdout, "%-*s  %s\n", width, name, firstSentence(sc.Description))
	}
	return nil
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	end := len(s)
	for _, stop := range []string{". ", "? ", "! "} {
		if i := strings.Index(s, stop); i >= 0 && i+1 < end {
			end = i + 1
		}
	}
	return s[:end]
}

func setupValidate(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	sets := new([]string)
	listVar(fs, sets, "set", "key=value", "override a scenario key, the value in TOML syntax (repeatable)")
	return func(stdout, stderr io.Writer) error { return validate(fs, *sets, stdout, stderr) }
}

// validate is the validate command, once its flags are parsed.
func validate(fs *pflag.FlagSet, sets []string, stdout, stderr io.Writer) error {
	if fs.NArg() == 0 {
		return argsError("validate", "validate needs at least one scenario file")
	}
	bad := 0
	for _, f := range fs.Args() {
		sc, err := scenarios.Load(f, scenarios.Options{Sets: sets})
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad++
			continue
		}
		most := mostRequests(sc)
		fmt.Fprintf(stdout, "%s: ok: %s, %d variant(s), about %s requests per variant (at most %s), about %s of memory for a run of them all (at most %s)%s\n",
			f, sc.Name, len(sc.Variants), units.Approx(most), units.Approx(compile.MaxRequests), humanBytes(sc.Memory), humanBytes(compile.MaxRunMemory), workSentence(sc))
		sanityWarnings(stderr, f, sc)
	}
	if bad > 0 {
		return usagef("%d of %d scenario(s) have problems", bad, fs.NArg())
	}
	return nil
}

// sanityWarnings writes, for each variant of sc (from file), a "warning:" line per node
// the utilization law predicts past its cores, and for the stream that offers the most
// work (diagnose.Sanity): a valid scenario that no run can carry. The file stays valid.
func sanityWarnings(stderr io.Writer, file string, sc *scenarios.Scenario) {
	var exs []*scenarios.Explanation
	for _, v := range sc.Variants {
		exs = append(exs, v.Explain())
	}
	d := describe(sc, exs)
	for _, v := range d.Variants {
		if v.Prediction == nil {
			continue
		}
		for _, w := range diagnose.Sanity(v.Prediction, 0) {
			where := file
			if len(d.Variants) > 1 {
				where += ": variant " + strconv.Quote(v.Name)
			}
			fmt.Fprintln(stderr, escape.Line("warning: "+where+": "+w))
		}
	}
}

func setupExplain(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	c := new(common)
	fs.StringVarP(&c.format, "format", "f", "text", "what goes to stdout: text, markdown or json")
	c.registerScenario(fs, "explain only this variant")
	return func(stdout, stderr io.Writer) error { return explain(fs, c, stdout, stderr) }
}

// explain is the explain command, once its flags are parsed.
func explain(fs *pflag.FlagSet, c *common, stdout, stderr io.Writer) error {
	if fs.NArg() > 1 {
		return argsError("explain", "explain takes one scenario (got %d)", fs.NArg())
	}
	if c.format == "csv" {
		return usagef("--format csv: explain writes text, markdown or json")
	}
	c.parallel = 1
	opts, err := c.options()
	if err != nil {
		return err
	}
	ref := scenarios.Default
	if fs.NArg() == 1 {
		ref = fs.Arg(0)
	}
	sc, err := scenarios.Load(ref, opts)
	if err != nil {
		return usageError{err}
	}
	printNotes(stderr, sc)
	var exs []*scenarios.Explanation
	for _, v := range sc.Variants {
		exs = append(exs, v.Explain())
	}
	e := report.Explain(describe(sc, exs))
	switch c.format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(e)
	case "markdown":
		report.ExplainMarkdown(stdout, e)
	default:
		report.ExplainText(stdout, e)
	}
	fmt.Fprintf(stdout, "\nA run of these variants takes about %s of memory (at most %s) and issues about %s requests per variant (at most %s)%s.\n",
		humanBytes(sc.Memory), humanBytes(compile.MaxRunMemory), units.Approx(mostRequests(sc)), units.Approx(compile.MaxRequests), workSentence(sc))
	return nil
}

func setupVersion(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	return func(stdout, _ io.Writer) error {
		if fs.NArg() > 0 {
			return argsError("version", "version takes no arguments")
		}
		fmt.Fprintf(stdout, "shardsim %s (%s)\n", version, goVersion())
		return nil
	}
}
