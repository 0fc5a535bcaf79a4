package capacity

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/figures/replicas"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// TestCapacityCeilingBinds: on M/M/1 (mu = 1000/s, lambda = 700/s) with an SLO the queue
// meets up to 99% busy (p99 < 1 s), a ceiling of 50% binds: the answer's busiest node is
// at most 50% of its core at peak (its busiest window), the multiple above it passes the
// ceiling, the answer is about 0.5/0.7 (the utilization law), and the table, its note and
// the closing line say that the ceiling binds. Without the ceiling the same search goes
// far higher.
func TestCapacityCeilingBinds(t *testing.T) {
	slo, err := sweep.ParseSLO("requests:p99<1s")
	if err != nil {
		t.Fatal(err)
	}
	search := func(ceiling float64) Answer {
		res, err := Run(Config{
			Config: sweep.Config{Scenario: "../../testdata/queueing/mm1.toml", Options: scenarios.Options{Sets: []string{`duration="60s"`, `window="5s"`}},
				Replications: 1, Parallel: 1, MaxUtilization: ceiling},
			SLOs: []sweep.SLO{slo}, MaxErrors: 0.001, Budget: 60e9, Require: RequireAll,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	c := search(0.5)
	if c.Binding != metrics.Ceiling || c.At == nil || c.Above == nil {
		t.Fatalf("binding %q (%s), want %q with probes at and above the answer", c.Binding, c.Reason, metrics.Ceiling)
	}
	if c.At.PeakLoad.Mean > 0.5 || c.Above.PeakLoad.Mean <= 0.5 {
		t.Errorf("peak load %.3f at the answer and %.3f above it, want at most 0.5 and above it", c.At.PeakLoad.Mean, c.Above.PeakLoad.Mean)
	}
	if want := 0.5 / 0.7; c.Multiple > want || c.Multiple < 0.9*want {
		t.Errorf("multiple %v, want at most %.4f (0.5 / 0.7) and within 10%% of it", c.Multiple, want)
	}
	cr := &Report{Scenario: "mm1", Config: Config{SLOs: []sweep.SLO{slo}, Config: sweep.Config{MaxUtilization: 0.5}, Require: RequireAll}, Rows: []Answer{c}}
	var b strings.Builder
	cr.Text(&b)
	out := b.String()
	for _, want := range []string{"ceiling [1]", "[1] node 0 at ", "over the ceiling of 50%", "above which ceiling binds: node 0 at", "under the 50% ceiling"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if free := search(0); free.Multiple < 1.2 {
		t.Errorf("without a ceiling the answer is %v, want above 1.2 (the SLO holds up to 99%% busy)", free.Multiple)
	}
}

// answerOf is an answer at point values with the mean's and every replication's
// answers, as a search of three replications under req would give them.
func answerOf(nodes string, req Require, mean, all float64) Answer {
	m := mean
	if req == RequireAll {
		m = all
	}
	at := &Probe{Multiple: m, Seeds: []uint64{1, 2, 3}, Passes: 3, Stats: []replicas.Estimate{{Mean: 30, N: 3}}, Assessment: metrics.Assessment{OK: true}}
	if req == RequireMean && all < mean {
		at.Passes = 2 // SPLIT 2/3 at the mean's answer
	}
	return Answer{Point: sweep.Point{Values: []string{nodes}}, Variant: "base", Require: req, Multiple: m, MeanAnswer: mean, AllAnswer: all,
		Failed: m * 1.01, Binding: "create_order:p99<50ms", Reason: "create_order p99 65.50 ms >= 50.00 ms", At: at,
		Spread: replicas.Estimate{Mean: m, Median: m, Min: m, Max: m, Lo: m, Hi: m, N: 3}}
}

// TestClosingAgreesWithTable: the closing line says a node count carries the plan only
// where every replication meets the SLOs at a multiple of 1 or more. Under --require mean
// a count whose mean passes at 1.0 but whose table row reads SPLIT 2/3 (every replication
// only to 0.98) does not carry it: the line names the next count that does, and says what
// the first reaches on the mean and in every seed; with none that does, it says so and
// what binds. capacity.json's answer says the same.
func TestClosingAgreesWithTable(t *testing.T) {
	slo, _ := sweep.ParseSLO("create_order:p99<50ms")
	axes := []sweep.Axis{{Key: "cluster.nodes", Values: []string{"5", "6"}}}
	cfg := Config{SLOs: []sweep.SLO{slo}, Config: sweep.Config{Axes: axes, Replications: 3}, Require: RequireMean}
	cr := &Report{Scenario: "orders-svc", Config: cfg, Rows: []Answer{answerOf("5", RequireMean, 1.0, 0.984375), answerOf("6", RequireMean, 1.25, 1.2)}}
	var b strings.Builder
	cr.Text(&b)
	out := b.String()
	if !strings.Contains(out, "SPLIT 2/3") {
		t.Fatalf("the table does not show the split at 5 nodes:\n%s", out)
	}
	line := cr.closing()[0]
	if strings.Contains(line, "5 nodes carry") || !strings.Contains(line, "6 nodes carry the plan") ||
		!strings.Contains(line, "5 nodes reach 1x on the mean of the seeds but 0.984375x in every one") {
		t.Errorf("closing line %q, want 6 nodes carrying the plan and 5 reaching 1x on the mean only", line)
	}
	var js ReportJSON
	raw, _ := json.Marshal(cr.JSON())
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Answer) != 1 || !js.Answer[0].Carries || js.Answer[0].Values["cluster.nodes"] != "6" || js.Answer[0].Multiple == nil ||
		*js.Answer[0].Multiple != 1.25 || js.Answer[0].Binds != "create_order:p99<50ms" || js.Answer[0].Line != line {
		t.Errorf("capacity.json answer %+v, want 6 nodes at 1.25 bound by the SLO, with the closing line", js.Answer)
	}
	// Neither count carries it in every replication.
	cr.Rows = []Answer{answerOf("5", RequireMean, 1.0, 0.984375), answerOf("6", RequireMean, 0.9, 0.9)}
	line = cr.closing()[0]
	if strings.Contains(line, "carry the plan") || !strings.Contains(line, "none of those tried carries the plan") ||
		!strings.Contains(line, "above which create_order:p99<50ms binds: create_order p99 65.50 ms >= 50.00 ms") {
		t.Errorf("closing line %q, want none carrying the plan and what binds", line)
	}
	raw, _ = json.Marshal(cr.JSON())
	js = ReportJSON{}
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Answer) != 1 || js.Answer[0].Carries || js.Answer[0].Values != nil || js.Answer[0].Multiple != nil {
		t.Errorf("capacity.json answer %+v, want no values chosen", js.Answer)
	}
}

// TestCapacityTableWidth: the text's tables fit 160 columns with two SLOs, three
// replications and long reasons, which go below the table as numbered notes (a reason
// written once however many rows give it).
func TestCapacityTableWidth(t *testing.T) {
	a, _ := sweep.ParseSLO("create_order:p99<50ms")
	g, _ := sweep.ParseSLO("get_order:p99<50ms")
	axes := []sweep.Axis{{Key: "cluster.nodes", Values: []string{"5", "6", "8"}}}
	cfg := Config{SLOs: []sweep.SLO{a, g}, Config: sweep.Config{Axes: axes, Replications: 3, MaxUtilization: 0.85}, Require: RequireMean}
	var rows []Answer
	for i, n := range []string{"5", "6", "8"} {
		r := answerOf(n, RequireMean, 1.0+float64(i)/3, 0.984375+float64(i)/3)
		r.At.Stats = append(r.At.Stats, replicas.Estimate{Mean: 39.5, Lo: 20.8, Hi: 72.1, N: 3})
		r.Reason = "node 1 is offered 100.31% of its cores at the streams' peak rates (the utilization law, as explain computes it): no run there is an answer"
		r.Binding = "offered"
		r.Check = &Probe{Multiple: r.Multiple, Seeds: []uint64{4}, Stats: r.At.Stats, Assessment: metrics.Assessment{OK: true}}
		r.CheckAbove = r.Check
		rows = append(rows, r)
	}
	cr := &Report{Scenario: "orders-svc", Config: cfg, Rows: rows}
	var b strings.Builder
	cr.Text(&b)
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ANSWER:") || strings.HasPrefix(l, "capacity of") || strings.HasPrefix(l, "[") || strings.HasPrefix(l, "SPLIT") || strings.HasPrefix(l, "check:") {
			continue // prose, which a terminal wraps
		}
		if n := len([]rune(l)); n > 160 {
			t.Errorf("a table line is %d columns wide, want at most 160: %q", n, l)
		}
	}
	if strings.Count(out, "[1] node 1 is offered") != 1 || strings.Contains(out, "[2]") || !strings.Contains(out, "offered [1]") {
		t.Errorf("want one note for the three rows' reason:\n%s", out)
	}
	if !strings.Contains(out, `docs/capacity.md, "Terms"`) {
		t.Errorf("the closing line's terms do not point at docs/capacity.md:\n%s", out)
	}
}
