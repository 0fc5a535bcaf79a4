package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/runs/cluster"
	"github.com/shardsim/shardsim/runs/sweep"
)

// clusterFlags are the flags that run a part of a sweep or capacity search (docs/cluster.md).
type clusterFlags struct {
	shard    string
	shards   int
	resume   bool
	planOnly bool
	claim    bool
	lease    time.Duration
}

func (cf *clusterFlags) register(fs *pflag.FlagSet) {
	textVar(fs, &cf.shard, "shard", "", "K/N", "run only worker K's share of N (counting from 0), each item to its own file under -o DIR/points; auto reads K and N from a Kubernetes Indexed Job or a Slurm job array")
	fs.IntVar(&cf.shards, "shards", 0, "with --shard auto: the number of workers, where the batch system does not say (a Kubernetes Indexed Job's completions)")
	fs.BoolVar(&cf.resume, "resume", false, "with --shard: skip the items whose files are already in DIR/points for this same manifest; without it, continue the interrupted sweep or capacity search in -o DIR from the runs it kept")
	fs.BoolVar(&cf.claim, "claim", false, "with --shard, workers sharing -o DIR: claim each item before running it, and once this worker's own are done take over the items no live worker holds (implies --resume)")
	fs.DurationVar(&cf.lease, "lease", cluster.DefaultLease, "with --claim: a claim not renewed for this long is a dead worker's, and its item is taken over")
	fs.BoolVar(&cf.planOnly, "plan", false, "write the manifest (every work item) to -o DIR and run nothing; then workers run with --shard and merge puts them together")
}

// active reports whether the command runs a part (or only plans).
func (cf *clusterFlags) active() bool {
	return cf.shard != "" || cf.planOnly || cf.claim || cf.shards != 0
}

// part reads --shard and --shards.
func (cf *clusterFlags) part() (cluster.Part, error) {
	if cf.shards < 0 {
		return cluster.Part{}, usagef("--shards %d: want at least 1", cf.shards)
	}
	if cf.shard == "auto" {
		p, err := cluster.PartFromEnv(os.Getenv, cf.shards)
		if err != nil {
			return p, usageError{err}
		}
		return p, nil
	}
	if cf.shards > 0 {
		return cluster.Part{}, usagef("--shards %d is for --shard auto; --shard K/N gives the count itself", cf.shards)
	}
	p, err := cluster.ParsePart(cf.shard)
	if err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// runPart plans a sweep or capacity search (kind) with plan, writes or checks its
// manifest in the output directory and runs this worker's items (nothing with --plan).
func (e *exploreFlags) runPart(c sweep.Config, kind string, stdout, stderr io.Writer, plan func(sweep.Config) (*cluster.Work, error)) error {
	part, err := e.cluster.worker()
	if err != nil {
		return err
	}
	name := scenarioName(c, stderr)
	dir := e.out
	if dir == "" {
		dir = defaultOutDir(name, kind)
	}
	// Workers share the directory, so it is not locked as a run's is; the manifest keeps
	// them to one sweep. It holds the marker of the results merge will write there.
	if err := claimWorkDir(dir, name+" "+kind, e.force); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c.Stop = func() bool { return ctx.Err() != nil }
	w, err := prepareWork(c, kind, name, dir, plan)
	if err != nil {
		return err
	}
	items := len(w.Manifest.Items)
	if e.cluster.planOnly {
		fmt.Fprintf(stdout, "%s of %s: %s; manifest written to %s\n", kind, name, metrics.Plural(int64(items), "work item"), filepath.Join(dir, cluster.ManifestName))
		fmt.Fprintf(stdout, "next: N workers run the same command with --shard K/N (or --shard auto) instead of --plan, then: shardsim merge %s\n", dir)
		return nil
	}
	layout, part, err := w.Place(dir, part)
	if err != nil {
		var me *cluster.ManifestError
		if errors.As(err, &me) {
			return usageError{err}
		}
		return err
	}
	progressFn, finish := progress(stderr, e.quiet, fmt.Sprintf("%s worker %v", kind, part))
	w.SetProgress(progressFn)
	res, err := e.cluster.run(w, dir, layout, part)
	finish()
	switch {
	case errors.Is(err, sweep.ErrInterrupted):
		return fmt.Errorf("worker %v interrupted after %s; the finished ones are kept: rerun it with --resume", part, metrics.Plural(int64(res.Ran), "item"))
	case err != nil:
		return err
	}
	workerDone(stdout, w, dir, fmt.Sprintf("worker %v of %s %s", part, name, kind), res)
	return nil
}

// worker checks the cluster flags together and reads this worker's part (none with
// --plan).
func (cf *clusterFlags) worker() (cluster.Part, error) {
	var part cluster.Part
	if !cf.planOnly && cf.shard == "" {
		return part, usagef("--resume, --claim and --shards are a worker's: give --shard K/N (or auto) too")
	}
	if !cf.planOnly {
		var err error
		if part, err = cf.part(); err != nil {
			return part, err
		}
	} else if cf.shard != "" || cf.resume || cf.claim {
		return part, usagef("--plan runs nothing, so it takes no --shard, --resume or --claim")
	}
	if cf.lease <= 0 {
		return part, usagef("--lease %v: want a positive duration", cf.lease)
	}
	return part, nil
}

// prepareWork plans the work (plan) and writes or checks its manifest and the marker in
// dir.
func prepareWork(c sweep.Config, kind, name, dir string, plan func(sweep.Config) (*cluster.Work, error)) (*cluster.Work, error) {
	w, err := plan(c)
	if err != nil {
		if errors.Is(err, sweep.ErrInterrupted) {
			return nil, fmt.Errorf("%s interrupted while planning", kind)
		}
		return nil, usageError{err}
	}
	if err := w.Prepare(dir); err != nil {
		var me *cluster.ManifestError
		if errors.As(err, &me) {
			return nil, usagef("-o %v", err)
		}
		return nil, err
	}
	if marker := filepath.Join(dir, markerFile); !exists(marker) {
		if err := atomicfile.Write(marker, []byte(name+" "+kind+"\n")); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// run runs this worker's items: with --claim, claiming each and then taking over the
// items no live worker holds; else its share of the static plan.
func (cf *clusterFlags) run(w *cluster.Work, dir string, layout *cluster.Layout, part cluster.Part) (cluster.Claimed, error) {
	if cf.claim {
		return w.RunClaiming(dir, layout, part, cf.lease)
	}
	ran, skipped, err := w.RunPart(dir, w.Mine(layout, part), cf.resume)
	return cluster.Claimed{Ran: ran, Skipped: skipped}, err
}

// workerDone says what the worker (who) did and how many of the items are finished.
func workerDone(stdout io.Writer, w *cluster.Work, dir, who string, res cluster.Claimed) {
	done, items := 0, len(w.Manifest.Items)
	for i := range w.Manifest.Items {
		if exists(w.Manifest.File(dir, i)) {
			done++
		}
	}
	fmt.Fprintf(stdout, "%s: ran %s", who, metrics.Plural(int64(res.Ran), "item"))
	if res.Taken > 0 {
		fmt.Fprintf(stdout, " (%d taken over from other workers)", res.Taken)
	}
	if res.Skipped > 0 {
		fmt.Fprintf(stdout, ", skipped %d finished before", res.Skipped)
	}
	fmt.Fprintf(stdout, "; %s holds %d of %d items\n", filepath.Join(dir, cluster.PointsDir), done, items)
	if done == items {
		fmt.Fprintf(stdout, "every item is there: shardsim merge %s\n", dir)
	}
}

// claimWorkDir checks that the workers of name may write into dir: it is missing, or
// holds nothing but what workers write (the manifest, points/, the marker and files being
// written), or the results of name; or --force was given. Workers starting at once see
// each other's files, so a directory is not refused for them.
func claimWorkDir(dir, name string, force bool) error {
	if err := writable(dir); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil || force {
		return nil
	}
	for _, e := range ents {
		switch n := e.Name(); {
		case n == cluster.ManifestName, n == cluster.PointsDir, n == cluster.LayoutName, n == cluster.ClaimsDir, n == markerFile, n == lockFile, strings.HasPrefix(n, "."):
		default:
			return claimDir(dir, name, force)
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// mergeFlags are merge's flags: where its outputs go and in what form.
type mergeFlags struct {
	exploreFlags
}

func setupMerge(fs *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	m := new(mergeFlags)
	textVar(fs, &m.out, "out", "o", "dir", "output directory")
	showDefault(fs, "out", "the one DIR given, or out/<scenario-name>-<kind>")
	fs.StringVarP(&m.format, "format", "f", "text", "what goes to stdout: text, markdown, json or csv")
	fs.BoolVar(&m.noCharts, "no-charts", false, "write no charts")
	fs.StringVar(&m.chartFormat, "chart-format", "png", "chart files: png or svg")
	fs.BoolVarP(&m.quiet, "quiet", "q", false, "no messages on stderr")
	fs.BoolVar(&m.force, "force", false, "write into an output directory that holds another scenario's results")
	return func(stdout, stderr io.Writer) error { return runMerge(fs, m, stdout, stderr) }
}

// runMerge is the merge command, once its flags are parsed.
func runMerge(fs *pflag.FlagSet, m *mergeFlags, stdout, stderr io.Writer) error {
	if fs.NArg() == 0 {
		return argsError("merge", "merge needs the directories the workers wrote (-o of the sweep or capacity run with --shard)")
	}
	switch m.format {
	case "text", "markdown", "json", "csv":
	default:
		return usagef("--format %q: want text, markdown, json or csv", m.format)
	}
	if m.chartFormat != "png" && m.chartFormat != "svg" {
		return usagef("--chart-format %q: want png or svg", m.chartFormat)
	}
	merged, err := cluster.Merge(fs.Args())
	if err != nil {
		var me *cluster.ManifestError
		if errors.As(err, &me) {
			return usageError{err}
		}
		return err
	}
	man := merged.Manifest
	dir := m.out
	if dir == "" {
		dir = defaultOutDir(man.Name, man.Kind)
		if fs.NArg() == 1 {
			dir = fs.Arg(0)
		}
	}
	out, err := claimOut(dir, man.Name+" "+man.Kind, m.force)
	if err != nil {
		return err
	}
	if merged.Sweep != nil {
		sw := merged.Sweep
		return m.finish(out, stdout, stderr, sw.WriteFiles, sw.JSON(), sw.CSV, sw.Text, sw.Markdown)
	}
	cr := merged.Capacity
	return m.finish(out, stdout, stderr, cr.WriteFiles, cr.JSON(), cr.CSV, cr.Text, cr.Markdown)
}
