package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/units"
)

// TestDocFigures runs the commands whose figures docs/mitigations.md and docs/detection.md
// quote (built-ins of a few seconds each, each run once for both) and checks every such
// figure and quoted diagnosis (make docs rewrites them).
func TestDocFigures(t *testing.T) {
	runs := &runCache{root: t.TempDir(), m: map[string]*docRunResult{}}
	// The runs are independent: start them all at once, so that the machine's cores share
	// them; each check below waits for the runs it reads.
	var started sync.WaitGroup
	for _, args := range docFigureRuns {
		started.Add(1)
		go func() { defer started.Done(); runs.start(args) }()
	}
	t.Cleanup(started.Wait) // before the directory they write is removed
	t.Run("mitigations", func(t *testing.T) { mitigationsDoc(t, runs) })
	t.Run("detection", func(t *testing.T) { detectionDoc(t, runs) })
	t.Run("readme", func(t *testing.T) { readmeDoc(t, runs) })
}

// The runs TestDocFigures reads, each made once for every check that reads it. A run
// keeps only the variants the docs quote: a variant's results do not depend on which
// others run beside it (its seed and its traffic are its own), so its figures are those of
// the whole scenario's run, and the variants nobody reads are not simulated.
var (
	celebrityRun = []string{"run", "celebrity", "--variant", "hash(user_id), 16 shards", "--variant", "cache, no single-flight",
		"--variant", "cache with single-flight", "--variant", "hot-key copies (celebrity x 4)"}
	flashSaleRun = []string{"run", "flash-sale"}
	replicasRun  = []string{"run", "celebrity", "--variant", "hash(user_id), 16 shards", "--set", "cluster.replicas=2",
		"--set", "cluster.read_from=any", "--set", "cluster.apply_cost=0.2ms"}
	iotSplitsRun    = []string{"run", "iot-timeseries", "--variant", "ts, range, split by load"}
	quickstartRun   = []string{"run", "quickstart", "--variant", "0"}
	countryCodesRun = []string{"run", "country-codes", "--variant", "country, hash"}
	noisyTenantRun  = []string{"run", "noisy-tenant", "--variant", "tenant_id, hash", "--variant", "tenant_id, directory: own shard"}
	topOfMinuteRun  = []string{"run", "top-of-minute", "--variant", "synchronized flush"}
	saltBucketsRun  = []string{"run", "salt-buckets", "--set", "keyspace.salt=4", "--seed", "6"}
	gsiRun          = []string{"run", "gsi-write-sharding"}

	docFigureRuns = [][]string{celebrityRun, flashSaleRun, replicasRun, iotSplitsRun, quickstartRun,
		countryCodesRun, noisyTenantRun, topOfMinuteRun, saltBucketsRun, gsiRun}

	// docFigureCommands are the runs that are also docs/mitigations.md's commands: they run
	// as the doc writes them (with their text output; only -o and the outputOnly flags are
	// added), so that they are those commands' test too (TestDocCommands counts them) and
	// run once.
	docFigureCommands = [][]string{replicasRun, iotSplitsRun}
)

// mitigationsDoc checks docs/mitigations.md's figures.
func mitigationsDoc(t *testing.T, runs *runCache) {
	doc, _ := filepath.Abs("../../docs/mitigations.md")
	readme, _ := filepath.Abs("../../README.md")
	run := func(name string, args ...string) (*report.Summary, string) { return runs.run(t, args...) }
	variant := func(s *report.Summary, name string) *report.VariantSummary { return variantOf(t, s, name) }
	stream := func(v *report.VariantSummary, name string) *report.StreamSummary { return streamOf(t, v, name) }
	figs := map[string]string{}

	// Celebrity: the cache variants against the plain design.
	cel, celDir := run("celebrity", celebrityRun...)
	base, noSF, sf, copies := variant(cel, "hash(user_id), 16 shards"), variant(cel, "cache, no single-flight"),
		variant(cel, "cache with single-flight"), variant(cel, "hot-key copies (celebrity x 4)")
	figs["mit.cel.share"] = pct(base.HotKeys[0].Keys[0].Share)
	for name, v := range map[string]*report.VariantSummary{"base": base, "nosf": noSF, "sf": sf} {
		view := stream(v, "view_profile")
		figs["mit.cel."+name+".hot"] = pct(v.Skew.HottestLoad)
		figs["mit.cel."+name+".view_p99"] = fmtLatency(view.Latency.P99)
		figs["mit.cel."+name+".comment_p99"] = fmtLatency(stream(v, "post_comment").Latency.P99)
		if name == "base" {
			figs["mit.cel.base.backend"] = units.Count(view.Offered)
			continue
		}
		figs["mit.cel."+name+".hit"] = pct(view.Cache.HitRatio)
		figs["mit.cel."+name+".backend"] = units.Count(view.Cache.BackendReads)
		figs["mit.cel."+name+".joined"] = units.Count(view.Cache.Joined)
	}
	figs["mit.cel.saved"] = units.Count(stream(noSF, "view_profile").Cache.BackendReads - stream(sf, "view_profile").Cache.BackendReads)
	figs["mit.cel.base.peak"] = pct(base.Skew.PeakHottestLoad)
	figs["mit.cel.nosf.peak"] = pct(noSF.Skew.PeakHottestLoad)
	// Hot-key copies: the view p99 and the hottest shard against the plain design, the
	// comments' fan-out, and the shards the copies landed on in the busiest window.
	figs["mit.copies.view_p99"] = fmtLatency(stream(copies, "view_profile").Latency.P99)
	figs["mit.copies.hot"] = pct(copies.Skew.HottestLoad)
	c := stream(copies, "post_comment")
	figs["mit.copies.fanout"] = fmt.Sprintf("%.2f", c.Fanout.Mean)
	figs["mit.copies.fanout_max"] = strconv.Itoa(c.Fanout.Max)
	figs["mit.copies.comment_p99"] = fmtLatency(c.Latency.P99)
	top := topShards(t, filepath.Join(celDir, "shards.csv"), copies.Name, copies.Skew.PeakWindow, 4)
	figs["mit.copies.bars"] = fmt.Sprintf("%.0f-%.0f%%", 100*top[len(top)-1].load, 100*top[0].load)
	sort.Slice(top, func(i, j int) bool { return top[i].shard < top[j].shard })
	figs["mit.copies.shards"] = fmt.Sprintf("%d, %d, %d and %d", top[0].shard, top[1].shard, top[2].shard, top[3].shard)

	// Flash sale.
	fs, fsDir := run("flash-sale", flashSaleRun...)
	for name, vn := range map[string]string{"nosf": "cache, no single-flight", "sf": "cache with single-flight",
		"jitter": "single-flight + 20% TTL jitter", "swr": "single-flight + stale-while-revalidate"} {
		v := variant(fs, vn)
		view := stream(v, "view_product")
		figs["mit.fs."+name+".backend"] = units.Count(view.Cache.BackendReads)
		figs["mit.fs."+name+".view_p99"] = fmtLatency(view.Latency.P99)
		figs["mit.fs."+name+".stock_p99"] = fmtLatency(stream(v, "update_stock").Latency.P99)
		kinds := []string{}
		for _, d := range v.Diagnosis {
			kinds = append(kinds, "`"+d.Kind+"`")
		}
		if len(kinds) == 0 {
			kinds = []string{"none"}
		}
		figs["mit.fs."+name+".diagnosis"] = strings.Join(kinds, ", ")
	}
	wave, waveAt := maxBackend(t, filepath.Join(fsDir, "streams.csv"), "cache, no single-flight", "view_product", "10:00:05")
	figs["mit.fs.wave"] = units.Count(int64(wave))
	figs["mit.fs.wave_at"] = waveAt
	jit, _ := maxBackend(t, filepath.Join(fsDir, "streams.csv"), "single-flight + 20% TTL jitter", "view_product", "10:00:05")
	figs["mit.fs.jitter_max"] = units.Count(int64(jit))

	// Followers on celebrity's first design.
	rep, _ := run("replicas", replicasRun...)
	// The command as the doc shows it: its text output names shard 12 the hottest.
	if out := runs.start(replicasRun).stdout; !strings.Contains(out, "hottest shard 12") {
		t.Errorf("shardsim %s: the output does not say \"hottest shard 12\":\n%s", strings.Join(replicasRun, " "), out)
	}
	rv := &rep.Variants[0]
	figs["mit.rep.view_p99"] = fmtLatency(stream(rv, "view_profile").Latency.P99)
	figs["mit.rep.shard12"] = pct(rv.Shards[12].Utilization)
	for _, n := range []int{12, 13, 14} {
		figs[fmt.Sprintf("mit.rep.node%d", n)] = pct(rv.Nodes[n].Utilization)
	}

	// Splits by load on the raw time key.
	iot, _ := run("iot", iotSplitsRun...)
	if out := runs.start(iotSplitsRun).stdout; !strings.Contains(out, "split") {
		t.Errorf("shardsim %s: the output says no split:\n%s", strings.Join(iotSplitsRun, " "), out)
	}
	iv := &iot.Variants[0]
	var splits, moves []report.EventSummary
	for _, e := range iv.Events {
		switch e.Kind {
		case "split":
			splits = append(splits, e)
		case "move":
			moves = append(moves, e)
		}
	}
	if len(splits) < 2 || len(moves) == 0 {
		t.Fatalf("iot-timeseries: %d splits and %d moves, want several", len(splits), len(moves))
	}
	figs["mit.iot.splits"] = strconv.Itoa(len(splits))
	figs["mit.iot.first"] = strconv.Itoa(*splits[0].Shard)
	figs["mit.iot.last"] = strconv.Itoa(*splits[len(splits)-1].Shard + 1)
	figs["mit.iot.last_at"] = splits[len(splits)-1].At
	figs["mit.iot.move_after"] = fmt.Sprintf("%.0f s", moves[0].AtS-splits[0].AtS)
	figs["mit.iot.gini"] = fmt.Sprintf("%.2f", iv.Skew.NodeSpread.Gini)
	figs["mit.iot.peak_shard"] = strconv.Itoa(iv.Skew.PeakHottestShard)
	figs["mit.iot.peak"] = pct(iv.Skew.PeakHottestLoad)
	figs["mit.iot.peak_window"] = iv.Skew.PeakWindow
	nodes := map[string]bool{}
	for _, m := range moves {
		nodes[m.Message[strings.LastIndex(m.Message, " ")+1:]] = true
	}
	figs["mit.iot.nodes"] = strconv.Itoa(len(nodes))
	// The design and the split policy as the scenario file sets them.
	isc, err := scenarios.Load("iot-timeseries", scenarios.Options{Variants: []string{"ts, range, split by load"}})
	if err != nil {
		t.Fatal(err)
	}
	ispec := isc.Variants[0].Spec
	figs["mit.iot.seed"] = strconv.FormatUint(ispec.Seed, 10)
	figs["mit.iot.shards"] = strconv.Itoa(ispec.Shards)
	figs["mit.iot.split_load"] = fmt.Sprintf("%.0f%%", 100*ispec.Split.Load)
	figs["mit.iot.window"] = fmt.Sprintf("%.0f s", ispec.Window.Seconds())
	// The first hot-shard alert of a shard that moved during its window, quoted.
	for _, a := range iv.Alerts {
		if a.Kind == "hot_shard" && strings.Contains(a.Message, "moved from") {
			figs["mit.iot.moved_alert"] = a.Message
			figs["mit.iot.moved_detection"] = a.Detection
			break
		}
	}

	gsiFigures(t, runs, figs)
	docmark.Apply(t, &docmark.Parts{Owner: "mit", Figs: figs, Update: *update}, doc, readme)
}

// gsiFigures adds docs/mitigations.md's figures of gsi-write-sharding ("Global secondary
// indexes") to figs: the dashboard's p99 without and through the index, the busy group's
// index partition's share of the rows and load, the writes an index pushed back on, and
// the write's p99 with a synchronous and an asynchronous index.
func gsiFigures(t *testing.T, runs *runCache, figs map[string]string) {
	gsi, _ := runs.run(t, gsiRun...)
	none, limited := variantOf(t, gsi, "no index"), variantOf(t, gsi, "async index, limited")
	async, sync := variantOf(t, gsi, "async index, unlimited"), variantOf(t, gsi, "sync index, unlimited")
	figs["mit.gsi.noidx_p99"] = fmtLatency(streamOf(t, none, "group_hour").Latency.P99)
	figs["mit.gsi.idx_p99"] = fmtLatency(streamOf(t, async, "group_hour").Latency.P99)
	var rows, top int64
	for _, sh := range async.Shards {
		rows += sh.Rows
		top = max(top, sh.Rows)
	}
	if hot := async.Skew.HottestShard; shardNamed(async, hot) != "by_group_hour/10" {
		t.Errorf("gsi-write-sharding, async index, unlimited: the hottest shard is %d, the doc says the busy group's index partition", hot)
	}
	figs["mit.gsi.top_share"] = pct(float64(top) / float64(rows))
	figs["mit.gsi.hot_load"] = pct(async.Skew.PeakHottestLoad)
	figs["mit.gsi.throttled"] = pct(streamOf(t, limited, "ingest").ErrorRate)
	figs["mit.gsi.sync_p99"] = fmtLatency(streamOf(t, sync, "ingest").Latency.P99)
	figs["mit.gsi.async_p99"] = fmtLatency(streamOf(t, async, "ingest").Latency.P99)
}

type shardLoad struct {
	shard int
	load  float64
}

// topShards returns the n busiest shards of a variant in one window, from shards.csv,
// busiest first.
func topShards(t *testing.T, path, variant, window string, n int) []shardLoad {
	recs := readCSV(t, path)
	col := columns(recs[0])
	var out []shardLoad
	for _, r := range recs[1:] {
		if r[col["variant"]] != variant || r[col["window_start"]] != window {
			continue
		}
		s, _ := strconv.Atoi(r[col["shard"]])
		u, _ := strconv.ParseFloat(r[col["utilization"]], 64)
		out = append(out, shardLoad{s, u})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].load > out[j].load })
	if len(out) < n {
		t.Fatalf("%s: %d shards in window %s of %s, want %d", path, len(out), window, variant, n)
	}
	return out[:n]
}

// maxBackend is the most backend reads of a stream in one window from the window from on,
// and that window's start, from streams.csv.
func maxBackend(t *testing.T, path, variant, stream, from string) (float64, string) {
	recs := readCSV(t, path)
	col := columns(recs[0])
	best, at := -1.0, ""
	for _, r := range recs[1:] {
		if r[col["variant"]] != variant || r[col["stream"]] != stream || r[col["window_start"]] < from {
			continue
		}
		if x, err := strconv.ParseFloat(r[col["backend_reads"]], 64); err == nil && x > best {
			best, at = x, r[col["window_start"]]
		}
	}
	return best, at
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// shardNamed is the name summary.json gives shard id of v: an index's shard's name, or
// its number.
func shardNamed(v *report.VariantSummary, id int) string {
	for _, sh := range v.Shards {
		if sh.ID == id && sh.Name != "" {
			return sh.Name
		}
	}
	return strconv.Itoa(id)
}

// runCache holds the runs the doc tests make, each made once: args -> result.
type runCache struct {
	sync.Mutex
	root string
	m    map[string]*docRunResult
}

type docRunResult struct {
	once   sync.Once
	sum    report.Summary
	dir    string
	stdout string
	err    error
}

// run runs shardsim args (a run command) with -q, --no-charts (but one of
// docFigureCommands, as written) and its own output directory under c.root, once, and
// returns its summary and directory.
func (c *runCache) run(t *testing.T, args ...string) (*report.Summary, string) {
	t.Helper()
	r := c.start(args)
	if r.err != nil {
		t.Fatal(r.err)
	}
	return &r.sum, r.dir
}

// start makes the run of args unless it is made or being made, and returns it once made.
func (c *runCache) start(args []string) *docRunResult {
	k := strings.Join(args, "\x00")
	c.Lock()
	r, ok := c.m[k]
	if !ok {
		r = &docRunResult{dir: filepath.Join(c.root, strconv.Itoa(len(c.m)))}
		c.m[k] = r
	}
	c.Unlock()
	r.once.Do(func() {
		var out, errb bytes.Buffer
		flags := []string{"-q", "--no-charts", "-o", r.dir}
		if slices.ContainsFunc(docFigureCommands, func(c []string) bool { return slices.Equal(c, args) }) {
			flags = []string{"--no-charts", "--no-html", "-o", r.dir}
		}
		code := Main(append(slices.Clone(args), flags...), &out, &errb)
		r.stdout = out.String()
		if code != 0 {
			r.err = fmt.Errorf("shardsim %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
			return
		}
		b, err := os.ReadFile(filepath.Join(r.dir, "summary.json"))
		if err == nil {
			err = json.Unmarshal(b, &r.sum)
		}
		r.err = err
	})
	return r
}

func variantOf(t *testing.T, s *report.Summary, name string) *report.VariantSummary {
	t.Helper()
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i]
		}
	}
	t.Fatalf("%s: no variant %q", s.Scenario, name)
	return nil
}

func streamOf(t *testing.T, v *report.VariantSummary, name string) *report.StreamSummary {
	t.Helper()
	for i := range v.Streams {
		if v.Streams[i].Name == name {
			return &v.Streams[i]
		}
	}
	t.Fatalf("%s: no stream %q", v.Name, name)
	return nil
}

// diagnosisOf returns the variant's diagnosis of kind about subject ("" for any).
func diagnosisOf(t *testing.T, v *report.VariantSummary, kind, subject string) *report.Diagnosis {
	t.Helper()
	for i := range v.Diagnosis {
		if d := &v.Diagnosis[i]; d.Kind == kind && (subject == "" || d.Subject == subject) {
			return d
		}
	}
	t.Fatalf("%s: no %s diagnosis about %q in %+v", v.Name, kind, subject, v.Diagnosis)
	return nil
}

// readmeDoc checks the README's explain figures: quickstart's hot shard, predicted and run.
func readmeDoc(t *testing.T, runs *runCache) {
	readme, _ := filepath.Abs("../../README.md")
	var out, errb bytes.Buffer
	if code := Main([]string{"explain", "quickstart", "-f", "json"}, &out, &errb); code != 0 {
		t.Fatalf("shardsim explain quickstart: exit %d: %s", code, errb.String())
	}
	var ex struct {
		Variants []struct {
			Shards []struct{ Peak float64 }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &ex); err != nil {
		t.Fatal(err)
	}
	hot := 0.0
	for _, s := range ex.Variants[0].Shards {
		hot = max(hot, s.Peak)
	}
	qs, _ := runs.run(t, quickstartRun...)
	run := qs.Variants[0].Skew.HottestLoad
	if d := hot - run; d > 0.02 || d < -0.02 {
		t.Errorf("quickstart: explain predicts the hot shard at %.3f, the run measures %.3f", hot, run)
	}
	docmark.Apply(t, &docmark.Parts{Owner: "qs", Figs: map[string]string{"qs.explain_hot": pct(hot), "qs.run_hot": pct(run)}, Update: *update}, readme)
}
