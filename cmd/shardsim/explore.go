package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/cluster"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/units"
)

// exploreFlags are the flags sweep and capacity add to the common ones.
type exploreFlags struct {
	common
	vary         []string
	replications int
	maxRuns      int
	slos         []string
	maxErrors    string
	maxUtil      string
	cluster      clusterFlags
	// capacity's: --budget, --precision, --max-replications
	budget, precision string
	maxReplications   int
	// sweep's: --no-placement-check
	noPlacementCheck bool
}

// register adds the flags of sweep or capacity (kind).
func (e *exploreFlags) register(fs *pflag.FlagSet, kind string) {
	e.common.register(fs, defaultOutDir("<scenario-name>", kind))
	listVar(fs, &e.vary, "vary", "key=v1,v2,...", "vary a key over these values (repeatable: every combination runs)")
	fs.IntVarP(&e.replications, "replications", "r", 1, "runs per point and variant, with seeds seed, seed+1, ...")
	fs.IntVar(&e.maxRuns, "max-runs", sweep.DefaultMaxRuns, "refuse more than this many runs (points x variants x replications)")
	listVar(fs, &e.slos, "slo", "objective", "quoted for the shell: 'STREAM:p99<50ms' (mean, p50, p90, p95, p99, p999 or max) or 'STREAM:errors<0.1%' (repeatable)")
	fs.StringVar(&e.maxErrors, "max-errors", "0.1%", "largest acceptable share of failed requests, over every cause (rejected, throttled, timed out, limited, lock), judged with the SLOs")
	fs.StringVar(&e.maxUtil, "max-utilization", strconv.FormatFloat(metrics.DefaultCeiling, 'g', -1, 64), "the ceiling on the busiest node's load at peak (a share of its cores, 0.85 or 85%), judged with the SLOs: past it there is no answer; 1 turns it off (docs/capacity.md, \"Headroom\")")
	e.cluster.register(fs)
}

// config checks the flags and builds the sweep configuration.
func (e *exploreFlags) config(fs *pflag.FlagSet, what string) (sweep.Config, error) {
	if fs.NArg() > 1 {
		return sweep.Config{}, argsError(what, "%s takes one scenario (got %d)", what, fs.NArg())
	}
	opts, err := e.options()
	if err != nil {
		return sweep.Config{}, err
	}
	if e.replications < 1 {
		return sweep.Config{}, usagef("--replications %d: want at least 1", e.replications)
	}
	if e.maxRuns < 1 {
		return sweep.Config{}, usagef("--max-runs %d: want at least 1", e.maxRuns)
	}
	c := sweep.Config{Scenario: scenarios.Default, Options: opts, Replications: e.replications, Parallel: e.parallel, EngineCores: e.engineCores, MaxRuns: e.maxRuns}
	if fs.NArg() == 1 {
		c.Scenario = fs.Arg(0)
	}
	for _, s := range e.slos {
		slo, err := sweep.ParseSLO(s)
		if err != nil {
			return c, usageError{err}
		}
		c.SLOs = append(c.SLOs, slo)
	}
	if c.MaxErrors, err = sweep.ParseFraction(e.maxErrors); err != nil {
		return c, usagef("--max-errors %v", err)
	}
	if c.MaxUtilization, err = parseMaxUtilization(e.maxUtil); err != nil {
		return c, err
	}
	seen := map[string]bool{}
	for _, v := range e.vary {
		a, err := sweep.ParseVary(v)
		if err != nil {
			return c, usageError{err}
		}
		if seen[a.Key] {
			return c, usagef("--vary %s is given twice", a.Key)
		}
		seen[a.Key] = true
		c.Axes = append(c.Axes, a)
	}
	return c, nil
}

// parseMaxUtilization reads --max-utilization: a share of a node's cores above 0 and at
// most 1 (0.85 or 85%); 1 is no ceiling.
func parseMaxUtilization(s string) (float64, error) {
	x, err := sweep.ParseFraction(s)
	if err != nil || !(x > 0 && x <= 1) {
		return 0, usagef("--max-utilization %q: want a share of a node's cores above 0 and at most 1, such as 0.85 or 85%% (1 turns the ceiling off)", s)
	}
	return x, nil
}

// progress returns a progress callback drawing a bar with the count and an estimate of the
// time left on stderr, when stderr is a terminal and -q is not given; a plain line at most
// every progressEvery when stderr is a file or a pipe (plainProgress); nil otherwise. The
// bar is made at the first call, from the total it reports (0: unknown, a spinner).
func progress(stderr io.Writer, quiet bool, what string) (func(done, total int), func()) {
	if tw, ok := stderr.(*escape.TerminalWriter); ok {
		stderr = tw.Underlying() // the bar is shardsim's own drawing, with no name in it
	}
	if quiet {
		return nil, func() {}
	}
	f, ok := stderr.(*os.File)
	if !ok {
		return nil, func() {} // a writer of the caller's (tests), not a log
	}
	if !term.IsTerminal(int(f.Fd())) {
		return plainProgress(f, what, time.Now, progressEvery), func() {}
	}
	var bar *progressbar.ProgressBar
	update := func(done, total int) {
		if bar == nil {
			max := total
			if max == 0 {
				max = -1
			} else if max < 0 {
				max = -max // an estimate (plainProgress)
			}
			bar = progressbar.NewOptions(max, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
				progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100_000_000))
		}
		if total < 0 && done >= bar.GetMax() {
			bar.ChangeMax(done + 1) // past the estimate
		}
		bar.Set(done)
	}
	return update, func() {
		if bar != nil {
			bar.Finish()
		}
	}
}

// progressEvery is how often, at most, plainProgress writes a line.
const progressEvery = 30 * time.Second

// plainProgress returns a progress callback for a stderr that is not a terminal (a batch
// job's log, CI): a plain line at most every interval, "capacity runs: 14 of ~40, 2m10s
// elapsed, ~4m left", the total marked "~" where it is an estimate (a capacity search's,
// which cannot know how many multiples it will try) and the time left where one can be
// guessed from the pace so far. now is the clock (tests give their own).
func plainProgress(w io.Writer, what string, now func() time.Time, interval time.Duration) func(done, total int) {
	began := now()
	last := began
	return func(done, total int) {
		t := now()
		if t.Sub(last) < interval {
			return
		}
		last = t
		elapsed := t.Sub(began)
		line := fmt.Sprintf("%s: %d", what, done)
		if total != 0 {
			n := total
			approx := ""
			if total < 0 {
				n, approx = -total, "~"
			}
			n = max(n, done)
			line += fmt.Sprintf(" of %s%d", approx, n)
			if done > 0 && n > done {
				left := time.Duration(float64(elapsed) * float64(n-done) / float64(done))
				line += fmt.Sprintf(", %s elapsed, %s%s left", roundDuration(elapsed), approx, roundDuration(left))
			} else {
				line += fmt.Sprintf(", %s elapsed", roundDuration(elapsed))
			}
		} else {
			line += fmt.Sprintf(" done, %s elapsed", roundDuration(elapsed))
		}
		fmt.Fprintln(w, line)
	}
}

// roundDuration rounds d to seconds (to minutes past an hour) for a progress line.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// setupExplore registers the flags of sweep or capacity (kind) and returns the command.
func setupExplore(fs *pflag.FlagSet, kind string) func(stdout, stderr io.Writer) error {
	e := new(exploreFlags)
	e.register(fs, kind)
	if kind == "sweep" {
		fs.StringVar(&e.budget, "budget", "", "choose each run's length as capacity does: long enough for the hottest queue to settle (20 relaxation times after a warmup of 3), up to this much simulated time, e.g. 1h")
		showDefault(fs, "budget", "none: runs last the scenario's duration")
		fs.BoolVar(&e.noPlacementCheck, "no-placement-check", false, "with --slo, do not run the sweep again under random placement to see whether placement, not the varied key, decides the verdicts")
		return func(stdout, stderr io.Writer) error { return runSweep(fs, e, stdout, stderr) }
	}
	require := fs.String("require", "all", "with replications, the answer: all (every replication meets every SLO and the ceiling) or mean (each SLO's statistic averaged over the replications is under its bound)")
	fs.StringVar(&e.budget, "budget", "1h", "the longest simulated run, warmup included, that the search may choose so that the hottest queue settles (10 relaxation times after a warmup); past it a multiple is unsettled")
	fs.StringVar(&e.precision, "precision", "", "add replications, one at a time, until the answers' 95% interval is within this share of their mean (e.g. 1%) or the seeds agree, up to --max-replications")
	fs.IntVar(&e.maxReplications, "max-replications", 10, "with --precision, the most replications")
	return func(stdout, stderr io.Writer) error { return runCapacity(fs, e, *require, stdout, stderr) }
}

// runSweep is the sweep command, once its flags are parsed.
func runSweep(fs *pflag.FlagSet, e *exploreFlags, stdout, stderr io.Writer) error {
	c, err := e.config(fs, "sweep")
	if err != nil {
		return err
	}
	if len(c.Axes) == 0 {
		return argsError("sweep", "sweep needs at least one --vary KEY=V1,V2,...")
	}
	if e.budget != "" {
		b, err := units.ParseDuration(e.budget)
		if err != nil || b <= 0 {
			return usagef("--budget %q: want a simulated time such as 1h", e.budget)
		}
		c.RunBudget = time.Duration(b)
	}
	if e.cluster.active() {
		return e.runPart(c, "sweep", stdout, stderr, func(c sweep.Config) (*cluster.Work, error) { return cluster.PlanSweep(c, version) })
	}
	return e.sweepHere(fs, c, stdout, stderr)
}

// sweepHere runs a sweep on this machine. An interrupted sweep keeps its finished runs in
// the output directory, and --resume takes them (resume.go).
func (e *exploreFlags) sweepHere(fs *pflag.FlagSet, c sweep.Config, stdout, stderr io.Writer) error {
	dir := e.out
	if dir == "" {
		dir = defaultOutDir(scenarioNameOr(c), "sweep")
	}
	man := newResumeManifest("sweep", c.Scenario, c.Options, fs)
	var err error
	if e.cluster.resume {
		if c.Made, err = readPartial[sweep.RunID](dir, man); err != nil {
			return err
		}
	}
	var rows, random []sweep.Row
	var plog *partialLog
	interrupted := false
	out, name, err := e.explore(c, "sweep", stderr, func(stop func() bool, progress func(done, total int)) error {
		var err error
		if plog, err = newPartialLog(dir, man, e.cluster.resume); err != nil {
			return err
		}
		plog.stop = stop
		c.Stop, c.Progress, c.Record = plog.stopped, progress, plog.recordSweep
		if rows, err = sweep.Run(c); err == nil && !e.noPlacementCheck && sweep.NeedsPlacementCheck(c) {
			// Does placement decide the ranking? The same sweep under random placement.
			random, err = sweep.RunPlacement(c)
		}
		if errors.Is(err, sweep.ErrInterrupted) {
			interrupted = true
			if werr := plog.interrupted(); werr != nil {
				return werr
			}
		} else if err != nil && !e.cluster.resume {
			plog.done() // a sweep that failed leaves nothing behind
		}
		return err
	})
	if interrupted {
		return keptInterrupted("sweep", plog, c.Made, dir)
	}
	if err != nil {
		return err
	}
	c.Stop, c.Progress, c.Record, c.Made = nil, nil, nil, nil
	sw := &sweep.Sweep{Scenario: name, Config: c, Rows: rows, Random: random}
	if err := e.finish(out, stdout, stderr, sw.WriteFiles, sw.JSON(), sw.CSV, sw.Text, sw.Markdown); err != nil {
		return err
	}
	plog.done()
	return nil
}

// finish writes a sweep's or capacity search's files to out and its answer to stdout in
// the --format asked.
func (e *exploreFlags) finish(out *outDir, stdout, stderr io.Writer, write func(dir, format string) ([]string, error), js any,
	csv func(io.Writer) error, text, markdown func(io.Writer)) error {
	format := e.chartFormat
	if e.noCharts {
		format = ""
	}
	defer out.close()
	files, err := write(out.path(), format)
	if err != nil {
		return err
	}
	if err := out.commit(files); err != nil {
		return err
	}
	switch e.format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(js)
	case "csv":
		err = csv(stdout)
	case "markdown":
		markdown(stdout)
	default:
		text(stdout)
	}
	if err != nil {
		return err
	}
	if !e.quiet {
		fmt.Fprintf(stderr, "wrote %d files to %s\n", len(files), out.dir)
	}
	return nil
}

// explore runs a sweep or capacity search (run) with its output directory claimed (default
// out/<scenario>-<kind>), SIGINT/SIGTERM wired to stop it and a progress bar, and returns
// the directory, created and marked, and the scenario's name. An interrupted run writes
// nothing.
func (e *exploreFlags) explore(c sweep.Config, kind string, stderr io.Writer, run func(stop func() bool, progress func(done, total int)) error) (out *outDir, name string, err error) {
	name = scenarioName(c, stderr)
	if e.cpuprofile != "" {
		inputs := []string{c.Scenario}
		if sc, err := scenarios.Load(c.Scenario, c.Options); err == nil {
			inputs = append(inputs, sc.Inputs()...)
		}
		if err := checkOutFile("--cpuprofile", e.cpuprofile, inputs...); err != nil {
			return nil, "", err
		}
	}
	dir := e.out
	if dir == "" {
		dir = defaultOutDir(name, kind)
	}
	if out, err = claimOut(dir, name+" "+kind, e.force); err != nil {
		return nil, "", err
	}
	claimed := out
	defer func() {
		if err != nil {
			claimed.close()
		}
	}()
	stop, done, err := e.interruptible()
	if err != nil {
		return nil, "", err
	}
	defer done()
	progressFn, finish := progress(stderr, e.quiet, kind+" runs")
	err = run(stop, progressFn)
	finish()
	switch {
	case errors.Is(err, sweep.ErrInterrupted):
		return nil, "", fmt.Errorf("%s interrupted before every run finished; nothing was written", kind)
	case err != nil:
		return nil, "", usageError{err}
	}
	return out, name, nil
}

// scenarioName is the scenario's name for output paths and titles.
func scenarioName(c sweep.Config, stderr io.Writer) string {
	sc, err := scenarios.Load(c.Scenario, c.Options)
	if err != nil {
		return filepath.Base(c.Scenario)
	}
	for _, n := range c.Notes() {
		fmt.Fprintln(stderr, n)
	}
	return sc.Name
}

// runCapacity is the capacity command, once its flags are parsed.
func runCapacity(fs *pflag.FlagSet, e *exploreFlags, require string, stdout, stderr io.Writer) error {
	c, err := e.config(fs, "capacity")
	if err != nil {
		return err
	}
	cc, err := e.capacityConfig(c, require)
	if err != nil {
		return err
	}
	if e.cluster.active() {
		return e.runPart(c, "capacity", stdout, stderr, func(c sweep.Config) (*cluster.Work, error) {
			cc := cc
			cc.Config.Stop = c.Stop
			return cluster.PlanCapacity(cc, version)
		})
	}
	// An interrupted search keeps its finished runs in the output directory, and
	// --resume takes them (resume.go).
	dir := e.out
	if dir == "" {
		dir = defaultOutDir(scenarioNameOr(c), "capacity")
	}
	man := newResumeManifest("capacity", c.Scenario, c.Options, fs)
	if e.cluster.resume {
		if cc.Made, err = readPartial[capacity.RunID](dir, man); err != nil {
			return err
		}
	}
	var res []capacity.Answer
	var plog *partialLog
	interrupted := false
	out, name, err := e.explore(c, "capacity", stderr, func(stop func() bool, progress func(done, total int)) error {
		var err error
		if plog, err = newPartialLog(dir, man, e.cluster.resume); err != nil {
			return err
		}
		plog.stop = stop
		cc.Stop, cc.Progress, cc.Record = plog.stopped, progress, plog.record
		res, err = capacity.Run(cc)
		if errors.Is(err, sweep.ErrInterrupted) {
			interrupted = true
			if werr := plog.interrupted(); werr != nil {
				return werr
			}
		} else if err != nil && !e.cluster.resume {
			plog.done() // a search that failed leaves nothing behind
		}
		return err
	})
	if interrupted {
		return keptInterrupted("capacity", plog, cc.Made, dir)
	}
	if err != nil {
		return err
	}
	cc.Stop, cc.Progress, cc.Record, cc.Made = nil, nil, nil, nil
	cr := &capacity.Report{Scenario: name, Config: cc, Rows: res}
	if err := e.finish(out, stdout, stderr, cr.WriteFiles, cr.JSON(), cr.CSV, cr.Text, cr.Markdown); err != nil {
		return err
	}
	plog.done()
	return nil
}

// keptInterrupted is the error of an interrupted sweep or search (kind): how many runs it
// kept, those of this try and those an earlier one had made, and where.
func keptInterrupted[ID comparable](kind string, plog *partialLog, made map[ID][]*metrics.Run, dir string) error {
	kept := plog.runs
	for _, xs := range made {
		kept += len(xs)
	}
	return fmt.Errorf("%s interrupted: the %s finished are kept in %s, marked partial; the same command with --resume continues from them", kind, metrics.Plural(int64(kept), "run"), dir)
}

// scenarioNameOr is the scenario's name, or its file's name where it does not load (the
// search then reports why).
func scenarioNameOr(c sweep.Config) string {
	if sc, err := scenarios.Load(c.Scenario, c.Options); err == nil {
		return sc.Name
	}
	return filepath.Base(c.Scenario)
}

// capacityConfig is the search's settings from the capacity flags, each checked.
func (e *exploreFlags) capacityConfig(c sweep.Config, require string) (capacity.Config, error) {
	var err error
	if len(c.SLOs) == 0 {
		return capacity.Config{}, argsError("capacity", "capacity needs at least one --slo 'STREAM:p99<50ms'")
	}
	cc := capacity.Config{Config: c, SLOs: c.SLOs, MaxErrors: c.MaxErrors, Tolerance: 0.01}
	cc.Config.SLOs = nil
	if cc.Require, err = capacity.ParseRequire(require); err != nil {
		return capacity.Config{}, usageError{err}
	}
	b, err := units.ParseDuration(e.budget)
	if err != nil || b <= 0 {
		return capacity.Config{}, usagef("--budget %q: want a simulated time such as 30m", e.budget)
	}
	cc.Budget = time.Duration(b)
	if e.precision != "" {
		if cc.Precision, err = sweep.ParseFraction(e.precision); err != nil || !(cc.Precision > 0 && cc.Precision < 1) {
			return capacity.Config{}, usagef("--precision %q: want a share of the answer such as 1%%", e.precision)
		}
		if e.cluster.active() {
			return capacity.Config{}, usagef("--precision adds replications as the answers come in, which a cluster's fixed plan cannot; give -r instead")
		}
	}
	if e.maxReplications < 1 {
		return capacity.Config{}, usagef("--max-replications %d: want at least 1", e.maxReplications)
	}
	cc.MaxReplications = e.maxReplications
	return cc, nil
}
