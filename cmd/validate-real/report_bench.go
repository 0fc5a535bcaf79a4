package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// dataPath is the raw measurements' file beside the report: docs/validation.md's is
// docs/validation-data.json.
func dataPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + "-data.json"
}

// data is the raw measurements of every experiment, for calibrating the model later
// without the servers.
func (r *report) data() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("the measurements as JSON: %v", err)
	}
	return append(b, '\n'), nil
}

// rtMark is the mark of a figure measured without real-time priority.
func rtMark(rt rtState) string {
	if rt.On {
		return ""
	}
	return " †"
}

// writeRT says how the pgbench experiments were scheduled.
func writeRT(b *md, rt rtState) {
	if rt.On {
		b.w("The server (its postmaster and every backend, which inherit it) and pgbench ran at real-time\n")
		b.w("priority (`SCHED_FIFO %d`, `chrt`), so that other programs on the machine do not delay a\n", rtPriority)
		b.w("backend holding the row; each point's scheduling state was read from /proc and is in the table.\n\n")
		return
	}
	b.w("**Not at real-time priority** (%s): figures marked † were measured at\n", rt.Note)
	b.w("normal priority, where a backend holding the row waits for a core whenever the machine is\n")
	b.w("busy, so the hold, the calibration and every figure move with the machine's load.\n\n")
}

// writeCalibration says what the grid's model was calibrated from, and the model.
func writeCalibration(b *md, g *grid, mk string) {
	durable := g.Cal.FlushUs > 0
	if durable {
		b.w("Calibration: experiment 4's (`cost`, `lock`, the grant order and `lock_wake_cost`, below), and one\n")
		b.w("figure of this grid's own, its one client on one row:\n\n")
		b.w("- Round trip here: `SELECT 1` from one client, %.3f ms (load %s -> %s; server %s, pgbench %s)%s.\n",
			g.RoundTrip.MeanMs, g.RoundTrip.LoadBefore, g.RoundTrip.LoadAfter, g.RoundTrip.ServerRT, g.RoundTrip.ClientRT, mk)
		b.w("- One client on one row: %.3f ms a transaction; what it takes beyond experiment 4's one client is the\n", g.Cal.OneClientMs)
		b.w("  commit's wait for its WAL flush: `commit_flush` = **%.1f us**.\n", g.Cal.FlushUs)
	} else {
		b.w("Calibration from one client on one row, and one point for the waiters' cost:\n\n")
		b.w("- Round trip: `SELECT 1` from one client, %.3f ms (load %s -> %s; server %s, pgbench %s)%s: `cost` = **%.1f us**.\n",
			g.RoundTrip.MeanMs, g.RoundTrip.LoadBefore, g.RoundTrip.LoadAfter, g.RoundTrip.ServerRT, g.RoundTrip.ClientRT, mk, g.Cal.CostUs)
		b.w("- One client on one row: %.3f ms a transaction, so `lock` = that less the BEGIN's round trip = **%.1f us**.\n", g.Cal.OneClientMs, g.Cal.LockUs)
		if g.Cal.WakeFrom != "" {
			b.w("- %s: every release finds the other clients waiting, so the row serves 1 / (lock + (C - 1) x\n", g.Cal.WakeFrom)
			b.w("  `lock_wake_cost`) a second: `lock_wake_cost` = **%.1f us**.\n", g.Cal.WakeUs)
		}
	}
	if g.Cal.Clamped {
		b.w("- **The one-client latency was not above the round trip**: lock set to 1 us; the predictions inherit it.\n")
	}
	b.w("- The model: one node with %d cores, `clients = C`, `think = \"0s\"`, `salt = B` (random),\n", g.Cores)
	b.w("  constant `cost` and `lock`")
	if g.Cal.Grant != "" {
		b.w(", `lock_grant = %q`", g.Cal.Grant)
	}
	if g.Cal.WakeUs > 0 {
		b.w(", `lock_wake_cost = \"%.1fus\"`", g.Cal.WakeUs)
	}
	if durable {
		b.w(", `[cluster] commit_flush = \"%.1fus\"`", g.Cal.FlushUs)
	}
	if g.Cal.Release != "" {
		b.w(", `lock_release = %q` (the row is let go once its write has committed, flush included, as\n  PostgreSQL lets it go at COMMIT)", g.Cal.Release)
	}
	b.w("; 40 s simulated, 5 s left out.\n\n")
}

// writeGrid writes experiment 4 or 5.
func writeGrid(b *md, n int, title string, g *grid, targetPts, targetThr, targetMean int) {
	if g == nil {
		return
	}
	b.w("## Experiment %d: %s (PostgreSQL, pgbench)\n\n", n, title)
	b.w("pgbench runs the script below (`pgbench -n -f script -c C -j 1 -T %d -M prepared -D B=..`, over the\n", g.Seconds)
	b.w("server's Unix socket; ids uniform over B rows: B = 1 is one hot row), the row held across a 2 ms\n")
	b.w("wait that is not CPU. Server settings: `%s`. The figures are read from pgbench's\n", strings.Join(g.Settings, "`, `"))
	b.w("per-transaction log (`-l`): the transactions that ended after the first %g s of the run, so that\n", g.Warm)
	b.w("connecting the clients is left out (pgbench's own summary, over the whole run, is in the data file).\n\n")
	b.w("```\n%s```\n\n", hotRowScript)
	writeRT(b, g.RT)
	mk := rtMark(g.RT)
	writeCalibration(b, g, mk)
	thr, mean, pts := g.counts()
	b.w("Within 15%%: throughput at **%d of %d** predicted points, mean latency at **%d of %d**; counting the\n", thr, pts, mean, pts)
	cal := len(g.Rows) - pts
	b.w("calibration points, as issue 49's targets do: %d and %d of %d", thr+cal, mean+cal, pts+cal)
	if targetThr > 0 {
		b.w(" (the targets, on the full grid of %d points: %d and %d)", targetPts, targetThr, targetMean)
	}
	b.w(".\n\n")
	b.w("| C | B | measured tps | predicted | ratio | within 15%% | measured mean ms | predicted | ratio | within 15%% | p10 / p50 / p90 / p99 ms | load before -> after | server, pgbench |\n")
	b.w("|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|---|\n")
	for _, r := range g.Rows {
		mark := func(ok bool) string {
			if r.Calibration {
				return "calibration"
			}
			return yes(ok)
		}
		b.w("| %d | %d | %.1f%s | %.1f | %.2f | %s | %.3f%s | %.3f | %.2f | %s | %s | %s -> %s | %s, %s |\n",
			r.C, r.B, r.Throughput, mk, r.PredThr, r.ThrRatio, mark(r.ThrWithin), r.MeanMs, mk, r.PredMeanMs, r.MeanRatio, mark(r.MeanWithin),
			pcts(r.benchPoint, r.P99Ms), r.LoadBefore, r.LoadAfter, r.ServerRT, r.ClientRT)
	}
	b.w("\n")
}

func pcts3(p benchPoint) string {
	if p.Count == 0 {
		return "**" + p.Note + "**"
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f", p.P10Ms, p.P50Ms, p.P90Ms)
}

// pcts is a point's percentiles column (p10 / p50 / p90, then last), or its note when no
// transaction completed.
func pcts(p benchPoint, last float64) string {
	if p.Count == 0 {
		return "**" + p.Note + "**"
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f / %.2f", p.P10Ms, p.P50Ms, p.P90Ms, last)
}

// writeGridBehaviours says which of the model's missing behaviours the grid shows, from
// its own figures: grant order (the spread of the most clients on one row) and the
// waiters' cost (one row's throughput as clients are added).
func writeGridBehaviours(b *md, g *grid, durable bool) {
	if g == nil || len(g.Rows) == 0 {
		return
	}
	top := g.Cs[len(g.Cs)-1]
	b.w("The behaviours of real databases that this grid shows, against the model's mechanisms for them:\n\n")
	if p := g.point(top, 1); p != nil && !durable {
		writeGrantOrder(b, p, top, g.Cal.Grant)
	}
	writeWaiterCost(b, g, top)
	if durable {
		writeSharedFlush(b, g)
	}
	b.w("\n")
}

// writeGrantOrder says what point p, top clients on one row, shows of the order in which
// the row's waiters are served.
func writeGrantOrder(b *md, p *gridRow, top int, grant string) {
	if p.Count == 0 {
		b.w("- **Grant order**: %d clients on one row: %s, so this run says nothing of it.\n", top, p.Note)
		return
	}
	spread := p.P99Ms / max(p.P10Ms, 1e-9)
	shows := "shows it"
	if p.P99Ms <= 1.25*p.PredP99Ms && p.P10Ms >= 0.75*p.PredP50Ms {
		shows = "does not show it in this run"
	}
	b.w("- **Grant order**: %d clients on one row measured p10 %.1f, p50 %.1f, p99 %.1f ms (p99 / p10 = %.1f; load %s -> %s);\n",
		top, p.P10Ms, p.P50Ms, p.P99Ms, spread, p.LoadBefore, p.LoadAfter)
	if grant == "" || grant == "fifo" {
		b.w("  the model, whose row serves its waiters first come, first served, gives each client the same\n")
		b.w("  turn round the row: p50 %.1f, p99 %.1f ms, mean %.1f (shardsim's summary has no p10; with every\n", p.PredP50Ms, p.PredP99Ms, p.PredMeanMs)
		b.w("  wait alike it is the p50). Measured over the model: p50 %.2f, p99 %.2f: %s.\n", p.P50Ms/max(p.PredP50Ms, 1e-9), p.P99Ms/max(p.PredP99Ms, 1e-9), shows)
		return
	}
	b.w("  the model, whose row grants its lock to a waiter drawn at random (`lock_grant = %q`), gives p50\n", grant)
	b.w("  %.1f, p99 %.1f ms, mean %.1f. Measured over the model: p50 %.2f, p99 %.2f (target: within 25%%).\n", p.PredP50Ms, p.PredP99Ms, p.PredMeanMs, p.P50Ms/max(p.PredP50Ms, 1e-9), p.P99Ms/max(p.PredP99Ms, 1e-9))
}

// writeWaiterCost says how one row's throughput changed from a few clients to top.
func writeWaiterCost(b *md, g *grid, top int) {
	lo := 4
	if g.point(lo, 1) == nil {
		lo = g.Cs[min(1, len(g.Cs)-1)]
	}
	a, z := g.point(lo, 1), g.point(top, 1)
	if a == nil || z == nil || lo == top || a.Throughput <= 0 {
		return
	}
	change := z.Throughput/a.Throughput - 1
	model := z.PredThr/a.PredThr - 1
	shows := "shows it"
	if change > -0.10 {
		shows = "does not show it in this run (less than a 10% fall)"
	}
	b.w("- **Waiters cost the holder**: one row's throughput went from %.0f/s at %d clients to %.0f/s at %d (%+.0f%%;\n", a.Throughput, lo, z.Throughput, top, change*100)
	if g.Cal.WakeUs > 0 {
		b.w("  loads %s and %s): %s; the model with `lock_wake_cost` = %.1f us goes from %.0f/s to %.0f/s (%+.0f%%).\n", a.LoadBefore, z.LoadBefore, shows, g.Cal.WakeUs, a.PredThr, z.PredThr, model*100)
		return
	}
	b.w("  loads %s and %s), where the model's cap is flat (%+.0f%%): %s.\n", a.LoadBefore, z.LoadBefore, model*100, shows)
}

// writeSharedFlush lists the durable grid's points off the prediction, above and below.
func writeSharedFlush(b *md, g *grid) {
	var over, under []string
	for _, r := range g.Rows {
		if r.Calibration || r.ThrWithin {
			continue
		}
		s := fmt.Sprintf("C=%d B=%d (%.2f)", r.C, r.B, r.ThrRatio)
		if r.ThrRatio > 1 {
			over = append(over, s)
		} else {
			under = append(under, s)
		}
	}
	b.w("- **Durable commits share one WAL flush**: the model's node has one flusher (`commit_flush`), and\n")
	b.w("  one flush serves every commit waiting when it starts (group commit). Throughput above the\n")
	b.w("  prediction by more than 15%%: %s; below it: %s.\n", listOr(over), listOr(under))
}

func listOr(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// writeOpen writes experiment 6.
func writeOpen(b *md, e *openTail) {
	if e == nil {
		return
	}
	b.w("## Experiment 6: the open-loop tail on one row (PostgreSQL, pgbench -R)\n\n")
	b.w("The hot-row script on one row with Poisson arrivals (`pgbench -R rate -c %d -j 1 -T %d`), at fractions of\n", e.Clients, e.Seconds)
	b.w("the row's cap (experiment 4's %d clients on one row: %.1f tps). Latencies count from each\n", e.CapC, e.Cap)
	b.w("transaction's scheduled start (pgbench's log under -R), the first %g s of each run left out.\n", e.Warm)
	b.w("The model: experiment 4's calibration\n")
	b.w("(`cost` %.1f us, `lock` %.1f us", e.Cal.CostUs, e.Cal.LockUs)
	if e.Cal.Grant != "" {
		b.w(", `lock_grant = %q`", e.Cal.Grant)
	}
	if e.Cal.WakeUs > 0 {
		b.w(", `lock_wake_cost` %.1f us", e.Cal.WakeUs)
	}
	b.w("), Poisson arrivals at the same rate.\n\n")
	writeRT(b, e.RT)
	mk := rtMark(e.RT)
	b.w("| offered /s | share of the cap | completed tps | measured mean ms | predicted | ratio | within 15%% | measured p99 ms | predicted | ratio | within 25%% | p10 / p50 / p90 ms | load before -> after | server, pgbench |\n")
	b.w("|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|---|\n")
	for _, r := range e.Rows {
		b.w("| %.1f | %.0f%% | %.1f%s | %.3f%s | %.3f | %.2f | %s | %.2f%s | %.2f | %.2f | %s | %s | %s -> %s | %s, %s |\n",
			r.Rate, r.Load*100, r.Throughput, mk, r.MeanMs, mk, r.PredMeanMs, r.MeanRatio, yes(r.MeanWithin), r.P99Ms, mk, r.PredP99Ms, r.P99Ratio, yes(r.P99Within),
			pcts3(r.benchPoint), r.LoadBefore, r.LoadAfter, r.ServerRT, r.ClientRT)
	}
	b.w("\n**Grant order**: ")
	tail := 0
	for _, r := range e.Rows {
		if r.P99Ratio > 1.25 && r.MeanRatio < r.P99Ratio {
			tail++
		}
	}
	b.w("at %d of %d rates the measured p99 was more than 25%% above the model's while its mean was\n", tail, len(e.Rows))
	b.w("nearer. A row whose waiters are not served in arrival order spreads the wait without changing\n")
	b.w("its mean (first come, first served has the shortest tail of the orders with one mean)")
	if e.Cal.Grant == "random" {
		b.w("; the model\n")
		b.w("here draws the next holder at random, as PostgreSQL's woken waiters race for the row.\n\n")
	} else {
		b.w(".\n\n")
	}
}

// writeQuota writes experiment 7.
func writeQuota(b *md, e *quotaExp) {
	if e == nil {
		return
	}
	b.w("## Experiment 7: Redis under a CPU quota (redis-benchmark)\n\n")
	if e.Skipped != "" {
		b.w("**Skipped**: %s. The cap of a server that the clients can outrun needs a CPU quota on it\n", e.Skipped)
		b.w("on this two-core machine; run as root where cgroup v2's cpu controller or cgroup v1's cpu\n")
		b.w("hierarchy is mounted writable.\n\n")
		return
	}
	b.w("One redis-server (not a cluster, no persistence) in the cgroup v%d `%s`, limited to %.2f of a core\n", e.Version, e.Cgroup, e.Share)
	b.w("(a quota of %d us every %d us), %s; the server at nice %d (the quota binds\n", int(e.Share*cpuQuotaPeriodUs), cpuQuotaPeriodUs, e.Pinned, e.ServerNice)
	b.w("normal-priority processes only, so it is not at real-time priority; the nice value keeps the machine's\n")
	b.w("other programs from taking its quarter), redis-benchmark's scheduling: %s;\n", e.ClientRT)
	b.w("`redis-benchmark -t incr -c C -n N --csv`, N enough for the run's span at the rate a first short run found.\n")
	b.w("The cgroup was removed by its path at the end, after the server was stopped by its pid.\n\n")
	b.w("Calibration at low load: the server's idle CPU %.4f core; one paced client at %.0f INCR/s (asked %.0f;\n", e.IdleCPU, e.LowRateGot, e.LowRate)
	b.w("load %s -> %s): **%.1f us** of CPU a command (INFO cpu less the idle use, over INFO commandstats).\n", e.LowLoad[0], e.LowLoad[1], e.LowCPUUs)
	if e.WakeUs > 0 || e.CalC > 0 {
		b.w("The model: one node, one core, an event loop: each wake-up costs `wakeup_cost` once for every command it\n")
		b.w("finds waiting, and each command `cost`; both over %.2f (the quota's share: the node's core runs a\n", e.Share)
		b.w("quarter of the time), C closed-loop clients, no network. At the low rate every command is a wake-up of\n")
		b.w("its own (wakeup + cost = %.1f us); at %d clients, the fewest, every wake-up finds the other %d waiting, so\n", e.LowCPUUs, e.CalC, e.CalC-1)
		b.w("the cap is (C - 1) / (wakeup + (C - 1) cost) of the share: its measured cap splits the two, **`cost` = %.1f us and\n", e.CostUs)
		b.w("`wakeup_cost` = %.1f us** of a whole core. The other client counts are predicted.\n\n", e.WakeUs)
	} else {
		b.w("The model: one node, one core, one constant `cost` = that / %.2f (the quota's share: the\n", e.Share)
		b.w("node's core runs a quarter of the time), C closed-loop clients, no network.\n\n")
	}
	n := 0
	for _, p := range e.Points {
		n += b2i(p.Within)
	}
	b.w("Cap within 15%%: **%d of %d** (issue 49's target: all).\n\n", n, len(e.Points))
	b.w("A point whose server used less than 85%% of its quota was limited by the clients, not the server:\n")
	b.w("its cap was not measured there, and it is marked so.\n\n")
	b.w("| clients | requests | measured INCR/s | predicted cap | ratio | within 15%% | server CPU (cores) | CPU a command us | mean / p50 / p95 / p99 ms | load before -> after |\n")
	b.w("|---:|---:|---:|---:|---:|---|---:|---:|---|---|\n")
	for _, p := range e.Points {
		sat := ""
		if !p.Saturated {
			sat = " (client-bound)"
		}
		ok := yes(p.Within)
		if p.Calibration {
			ok = "calibration"
		}
		b.w("| %d | %d | %.0f | %.0f | %.2f | %s%s | %.3f | %.1f | %.2f / %.2f / %.2f / %.2f | %s -> %s |\n",
			p.C, p.Requests, p.Throughput, p.PredCap, p.Ratio, ok, sat, p.CPU, p.CmdCPUUs, p.MeanMs, p.P50Ms, p.P95Ms, p.P99Ms, p.LoadBefore, p.LoadAfter)
	}
	b.w("\n**CPU per request falls with load**: ")
	if len(e.Points) > 0 {
		var xs []string
		for _, p := range e.Points {
			xs = append(xs, fmt.Sprintf("%.1f us at %d clients (%.0f/s)", p.CmdCPUUs, p.C, p.Throughput))
		}
		b.w("the server spent %.1f us of CPU a command at %.0f/s and %s. An event loop\n", e.LowCPUUs, e.LowRateGot, strings.Join(xs, ", "))
		b.w("pays one wake-up for all the requests it finds waiting, so its cost a request, and its cap,\n")
		b.w("move with the number of clients, as `wakeup_cost` makes the model's.\n\n")
	}
}

// benchChecks counts the new experiments' checks and those within target.
func (r *report) benchChecks() (n, ok int) {
	for _, g := range []*grid{r.E4, r.E5} {
		if g == nil {
			continue
		}
		thr, mean, pts := g.counts()
		n, ok = n+2*pts, ok+thr+mean
	}
	if r.E6 != nil {
		for _, row := range r.E6.Rows {
			n, ok = n+2, ok+b2i(row.MeanWithin)+b2i(row.P99Within)
		}
	}
	if r.E7 != nil {
		for _, p := range r.E7.Points {
			n, ok = n+1, ok+b2i(p.Within)
		}
	}
	return n, ok
}

// target is one of issue 49's targets and what this run made of it.
type target struct {
	What, Target, Result string
	Met                  bool
	Measured             bool // false: this run did not measure it
}

// targets are issue 49's targets, each from this run's figures. Calibration points count
// as within (the issue counts them in its totals); each section lists them.
func (r *report) targets() []target {
	var ts []target
	if g := r.E4; g != nil {
		ts = append(ts, hotRowTargets(g)...)
	}
	if g := r.E5; g != nil {
		thr, _, pts := g.counts()
		cal := len(g.Rows) - pts
		ts = append(ts, target{What: "Durable grid (experiment 5): throughput within 15% (commit_flush, lock_release)", Target: "15 of 18",
			Result: fmt.Sprintf("%d of %d", thr+cal, len(g.Rows)), Met: thr+cal >= 15 && len(g.Rows) == 18, Measured: len(g.Rows) == 18})
	}
	if e := r.E7; e != nil && e.Skipped == "" {
		n := 0
		var xs []string
		for _, p := range e.Points {
			n += b2i(p.Within)
			xs = append(xs, fmt.Sprintf("%d clients %.2f", p.C, p.Ratio))
		}
		ts = append(ts, target{What: "Redis under a quarter-core quota (experiment 7): cap within 15% (wakeup_cost)", Target: "8, 50 and 200 clients",
			Result: fmt.Sprintf("%d of %d (%s)", n, len(e.Points), strings.Join(xs, ", ")), Met: n == len(e.Points) && len(e.Points) == 3, Measured: len(e.Points) == 3})
	}
	return ts
}

// hotRowTargets are the fsync-off grid's targets: its throughput and mean latency, the
// spread of the most clients on one row (the grant order), and one row's throughput as
// its clients grow (the wake cost).
func hotRowTargets(g *grid) []target {
	thr, mean, pts := g.counts()
	cal := len(g.Rows) - pts
	full := len(g.Rows) == 24
	ts := []target{
		{What: "Hot-row grid (experiment 4): throughput within 15%", Target: "23 of 24",
			Result: fmt.Sprintf("%d of %d", thr+cal, len(g.Rows)), Met: thr+cal >= 23 && full, Measured: full},
		{What: "Hot-row grid (experiment 4): mean latency within 15%", Target: "22 of 24",
			Result: fmt.Sprintf("%d of %d", mean+cal, len(g.Rows)), Met: mean+cal >= 22 && full, Measured: full},
	}
	// Without the point that calibrates lock_wake_cost (the short version's grid), the one
	// row's figures are predicted without it: those targets are not measured.
	waked := g.Cal.WakeFrom != ""
	top := g.Cs[len(g.Cs)-1]
	if p := g.point(top, 1); p != nil && p.Count > 0 {
		r50, r99 := p.P50Ms/p.PredP50Ms, p.P99Ms/p.PredP99Ms
		ts = append(ts, target{What: fmt.Sprintf("%d clients on one row: p50 and p99 within 25%% (grant order %q)", top, g.Cal.Grant), Target: "both",
			Result: fmt.Sprintf("p50 %.1f / %.1f ms (%.2f), p99 %.1f / %.1f ms (%.2f)", p.P50Ms, p.PredP50Ms, r50, p.P99Ms, p.PredP99Ms, r99),
			Met:    abs(r50-1) <= 0.25 && abs(r99-1) <= 0.25, Measured: waked})
	}
	n, ok := 0, 0
	var xs []string
	for _, C := range g.Cs {
		if p := g.point(C, 1); p != nil && C >= 4 {
			n++
			ratio := p.Throughput / p.PredThr
			ok += b2i(abs(ratio-1) <= 0.10)
			xs = append(xs, fmt.Sprintf("C=%d %.2f", C, ratio))
		}
	}
	if n > 0 {
		ts = append(ts, target{What: "One row's throughput at C = 4..32 within 10% (lock_wake_cost)", Target: fmt.Sprintf("%d of %d", n, n),
			Result: fmt.Sprintf("%d of %d (%s)", ok, n, strings.Join(xs, ", ")), Met: ok == n, Measured: waked})
	}
	return ts
}

// writeTargets writes the table of issue 49's targets.
func (r *report) writeTargets(b *md) {
	ts := r.targets()
	if len(ts) == 0 {
		return
	}
	b.w("## Issue 49's targets\n\n")
	b.w("Each model input is calibrated from the points each section names; every other point is predicted.\n")
	b.w("A target of the full grid is not met by the short version's fewer points (marked so).\n\n")
	b.w("| target | wanted | this run | met |\n|---|---|---|---|\n")
	for _, t := range ts {
		met := yes(t.Met)
		if !t.Measured {
			met = "not measured by this version"
		}
		b.w("| %s | %s | %s | %s |\n", t.What, t.Target, t.Result, met)
	}
	b.w("\n")
	r.writeMisses(b)
}

// writeMisses says, for each of issue 49's targets this run missed, what in the
// measurements shows why, every figure read from them.
func (r *report) writeMisses(b *md) {
	var missed []string
	for _, t := range r.targets() {
		if t.Measured && !t.Met {
			missed = append(missed, t.What)
		}
	}
	if len(missed) == 0 && r.E6 == nil {
		return
	}
	b.w("### Where a target is missed, and what the measurements show\n\n")
	if containsPrefix(missed, "Hot-row grid (experiment 4): throughput") {
		writeGridMiss(b, r.E4)
	}
	if containsPrefix(missed, "Durable grid") {
		writeDurableMiss(b, r.E5)
	}
	if containsPrefix(missed, "Redis under") {
		writeQuotaMiss(b, r.E7)
	}
	writeOpenMiss(b, r.E6, r.E4)
	b.w("\n")
}

// writeGridMiss: the fsync-off grid's throughput against the noise of its calibration.
func writeGridMiss(b *md, g *grid) {
	lo, hi := oneClientSpread(g, func(p *gridRow) float64 { return p.Throughput })
	b.w("- **Hot-row grid, throughput** (%s). One client runs the same transaction whatever B is, and\n", offPoints(g))
	b.w("  measured %.0f to %.0f tps across the grid's B (±%.0f%% about their middle), against a 15%% target;\n", lo, hi, 100*(hi-lo)/(hi+lo))
	b.w("  the calibration took one of them (B = 1, %.0f tps), and every prediction carries its error.\n", g.point(1, 1).Throughput)
}

// writeDurableMiss: the durable grid's commits, shorter with more clients.
func writeDurableMiss(b *md, g *grid) {
	lo, hi := oneClientSpread(g, func(p *gridRow) float64 { return p.MeanMs })
	Bmax := g.Bs[len(g.Bs)-1]
	b.w("- **Durable grid** (%s). One client's durable transaction measured %.2f to %.2f ms across\n", offPoints(g), lo, hi)
	b.w("  the grid's B (the calibration took B = 1's, %.2f ms, so `commit_flush` = %.0f us).", g.Cal.OneClientMs, g.Cal.FlushUs)
	if p := g.point(2, Bmax); p != nil && p.Throughput > 0 {
		b.w(" Two clients on %d\n", Bmax)
		b.w("  rows, which seldom meet on a row, took %.2f ms a transaction each (2 / %.0f tps): more clients made\n", 2000/p.Throughput, p.Throughput)
		b.w("  each commit shorter, which one flush of fixed length, shared or not, cannot do: the points\n")
		b.w("  with several clients on several rows are above the prediction.")
	}
	b.w("\n")
}

// writeQuotaMiss: Redis's CPU a command against the wake-up model's.
func writeQuotaMiss(b *md, e *quotaExp) {
	if len(e.Points) < 2 {
		return
	}
	var xs []string
	for _, p := range e.Points {
		xs = append(xs, fmt.Sprintf("%.1f us at %d clients", p.CmdCPUUs, p.C))
	}
	b.w("- **Redis under the quota**. The server's CPU a command measured %s, against %.1f us\n", strings.Join(xs, ", "), e.LowCPUUs)
	b.w("  at the low rate. The wake-up model's CPU a command falls as the clients grow, towards `cost`\n")
	b.w("  (%.1f us); where the measured one grows again, what grows with the clients (each client's\n", e.CostUs)
	b.w("  socket read and reply write, its bookkeeping) is not in the model, and its cap is overestimated.\n")
}

// writeOpenMiss: the open loop's transactions, slower on their own than the closed loop's.
func writeOpenMiss(b *md, e *openTail, g *grid) {
	if e == nil || len(e.Rows) == 0 || g == nil {
		return
	}
	one := g.point(1, 1)
	row := e.Rows[0]
	if one == nil || row.Count == 0 {
		return
	}
	b.w("- **The open-loop tail** (experiment 6, no target of its own): at %.0f%% of the row's cap, where\n", row.Load*100)
	b.w("  few transactions meet on the row, the median transaction took %.2f ms, against %.2f ms for one\n", row.P50Ms, one.P50Ms)
	b.w("  closed-loop client (experiment 4): the open loop's transactions are slower on their own, before\n")
	b.w("  any queueing, and its mean latencies are %.1f to %.1f times the model's. This run does not\n", minRatio(e), maxRatio(e))
	b.w("  establish why (pgbench's schedule, or cores left idle between Poisson arrivals waking late).\n")
}

// oneClientSpread is the least and largest of f over the grid's points of one client.
func oneClientSpread(g *grid, f func(*gridRow) float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range g.Rows {
		if g.Rows[i].C == 1 {
			v := f(&g.Rows[i])
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

// offPoints lists the grid's predicted points whose throughput missed 15%.
func offPoints(g *grid) string {
	var xs []string
	for _, r := range g.Rows {
		if !r.Calibration && !r.ThrWithin {
			xs = append(xs, fmt.Sprintf("C=%d B=%d %.2f", r.C, r.B, r.ThrRatio))
		}
	}
	return "off: " + listOr(xs)
}

func containsPrefix(xs []string, p string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}

func minRatio(e *openTail) float64 {
	m := math.Inf(1)
	for _, r := range e.Rows {
		m = min(m, r.MeanRatio)
	}
	return m
}

func maxRatio(e *openTail) float64 {
	m := math.Inf(-1)
	for _, r := range e.Rows {
		m = max(m, r.MeanRatio)
	}
	return m
}
