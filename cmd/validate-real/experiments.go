package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// measured is a figure measured several times: their median (Mean, the figure compared:
// a busy spell of the shared machine moves one repeat, not the median) and range.
type measured struct {
	Mean, Min, Max float64
	N              int
}

func measure(xs []float64) measured {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := measured{Min: s[0], Max: s[len(s)-1], N: len(s), Mean: s[len(s)/2]}
	if len(s)%2 == 0 {
		m.Mean = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return m
}

// counterRow is one grid point of experiment 1.
type counterRow struct {
	C, B                  int
	Calibration           bool
	Thr, Mean             measured
	PredThr, PredMean     float64
	ThrRatio, MeanRatio   float64
	ThrWithin, MeanWithin bool
}

type exp1 struct {
	Cs, Bs       []int
	Reps         int
	Warm, Span   time.Duration
	Cores        int
	CostUs       float64
	LockUs       float64
	Rows         []counterRow
	CapMeasured  float64 // 32 clients on one row
	CapPredicted float64
	L1Us         float64 // one client's mean latency on one row
	Inconsistent bool    // L1Us was not above LockUs
}

func experiment1(ctx context.Context, c config, pg *pgServer, tmp string, rep *report) error {
	e := &exp1{Cs: []int{1, 2, 4, 8, 16, 32}, Bs: []int{1, 2, 4, 8}, Reps: 5, Warm: 300 * time.Millisecond, Span: 1500 * time.Millisecond, Cores: runtime.NumCPU()}
	if c.short {
		e.Cs, e.Bs, e.Reps, e.Warm, e.Span = []int{1, 8, 32}, []int{1, 8}, 1, 300*time.Millisecond, time.Second
	}
	rep.E1 = e
	if err := pg.setupCounters(ctx); err != nil {
		return err
	}
	samples := map[[2]int][2][]float64{}
	// Repeats go round the whole grid, so that a busy spell of the machine spreads over the
	// points instead of spoiling one.
	for rp := range e.Reps {
		for _, B := range e.Bs {
			for _, C := range e.Cs {
				p, err := pg.measureCounters(ctx, C, B, e.Warm, e.Span, c.seed+uint64(rp))
				if err != nil {
					return fmt.Errorf("experiment 1 (PostgreSQL, %d clients on %d rows): %w", C, B, err)
				}
				s := samples[[2]int{C, B}]
				s[0], s[1] = append(s[0], p.Throughput), append(s[1], p.MeanMs)
				samples[[2]int{C, B}] = s
			}
		}
	}
	for _, B := range e.Bs {
		for _, C := range e.Cs {
			s := samples[[2]int{C, B}]
			e.Rows = append(e.Rows, counterRow{C: C, B: B, Thr: measure(s[0]), Mean: measure(s[1]), Calibration: (C == 1 || C == 32) && B == 1})
		}
	}
	return nil
}

type exp2 struct {
	Run      slotsRun
	SimOps   []int64
	Equal    bool
	SimRange int
}

func experiment2(ctx context.Context, c config, rc *redisCluster, tmp string, rep *report) error {
	n := 200_000
	if c.short {
		n = 30_000
	}
	trace := filepath.Join(tmp, "slots-trace.csv")
	run, err := rc.runSlots(ctx, n, trace, c.seed)
	if err != nil {
		return fmt.Errorf("experiment 2 (Redis Cluster slots): %w", err)
	}
	sum, err := simulate(ctx, c.shardsim, tmp, "redis-slots", slotsScenario(filepath.Base(trace), run.SpanS, run.Ranges, len(rc.ports)))
	if err != nil {
		return err
	}
	e := &exp2{Run: run, SimOps: sum.nodeOps(len(rc.ports)), SimRange: len(sum.Variants[0].Shards)}
	e.Equal = slices.Equal(e.SimOps, run.NodeCalls)
	rep.E2 = e
	return nil
}

type hotRow struct {
	Rate, Load       float64 // offered per second; offered over the measured cap
	Thr, P50         measured
	PredThr, PredP50 float64
	P50Ratio         float64
	Within, Checked  bool
	CPU              measured
	Lag              measured // the client's own delay before sending
}

type exp3 struct {
	Node         int
	Reps         int
	Warm, Span   time.Duration
	LowRate      float64
	Idle         measured // the node's CPU seconds a second with no commands
	CostUs       measured // the node's CPU per command at the low rate
	LowP50       measured
	NetUs        float64
	CapClients   int
	Cap          measured // closed loop, many clients
	CapCPU       measured // the node's CPU use during it (1.0 = one core busy)
	CapPredicted float64
	CapRatio     float64
	CapWithin    bool
	Saturated    bool // the node's CPU was at least 0.85 of a core at the cap
	Rows         []hotRow
}

// experiment3 measures the hot key's node: its cost per command and its cap, then the
// latency at rates up to the cap (predict compares them with the model).
func experiment3(ctx context.Context, c config, rc *redisCluster, tmp string, rep *report) error {
	e := &exp3{Reps: 3, Warm: 500 * time.Millisecond, Span: 3 * time.Second, LowRate: 500, CapClients: 64}
	fracs := []float64{0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0}
	if c.short {
		e.Reps, e.Span, fracs = 1, time.Second, []float64{0.25, 0.7}
	}
	rep.E3 = e
	node, err := rc.hotNode(ctx)
	if err != nil {
		return fmt.Errorf("experiment 3: %w", err)
	}
	e.Node = node
	if err := e.calibrate(ctx, c, rc); err != nil {
		return err
	}
	for _, f := range fracs {
		row, err := e.measureRate(ctx, c, rc, tmp, f)
		if err != nil {
			return err
		}
		e.Rows = append(e.Rows, row)
	}
	return nil
}

// calibrate measures, e.Reps times, the node's idle CPU use, the per-command cost and
// latency at low load, and the cap of e.CapClients closed-loop clients. At the low rate
// the node's CPU time per INCR (from INFO cpu and INFO commandstats) and the median
// latency, which at this rate queues for nothing: the network delay is what the median
// has beyond the cost.
func (e *exp3) calibrate(ctx context.Context, c config, rc *redisCluster) error {
	var costs, p50s, caps, capCPU, idles []float64
	for rp := range e.Reps {
		idle, err := rc.idleCPU(ctx, e.Node, e.Span)
		if err != nil {
			return fmt.Errorf("experiment 3 (Redis idle CPU): %w", err)
		}
		idles = append(idles, idle)
		p, err := rc.openLoop(ctx, e.Node, e.LowRate, e.Warm, e.Span, c.seed+uint64(rp), idle)
		if err != nil {
			return fmt.Errorf("experiment 3 (Redis hot key, %.0f/s): %w", e.LowRate, err)
		}
		costs, p50s = append(costs, p.CmdCPUUs), append(p50s, p.P50Ms)
		q, err := rc.closedLoop(ctx, e.Node, e.CapClients, e.Warm, e.Span)
		if err != nil {
			return fmt.Errorf("experiment 3 (Redis hot key, %d clients): %w", e.CapClients, err)
		}
		caps, capCPU = append(caps, q.Throughput), append(capCPU, q.CPU)
	}
	e.CostUs, e.LowP50, e.Cap, e.CapCPU, e.Idle = measure(costs), measure(p50s), measure(caps), measure(capCPU), measure(idles)
	if e.CostUs.Mean <= 0 {
		return fmt.Errorf("experiment 3: the node's CPU time per command measured %.2f us", e.CostUs.Mean)
	}
	e.NetUs = max(0, (e.LowP50.Mean*1000-e.CostUs.Mean)/2)
	return nil
}

// measureRate measures the open loop at the fraction f of the measured cap, e.Reps times.
func (e *exp3) measureRate(ctx context.Context, c config, rc *redisCluster, tmp string, f float64) (hotRow, error) {
	rate := math.Round(f * e.Cap.Mean)
	var thr, p50, cpu, lag []float64
	for rp := range e.Reps {
		p, err := rc.openLoop(ctx, e.Node, rate, e.Warm, e.Span, c.seed+uint64(rp)+100, 0)
		if err != nil {
			return hotRow{}, fmt.Errorf("experiment 3 (Redis hot key, %.0f/s): %w", rate, err)
		}
		thr, p50, cpu, lag = append(thr, p.Throughput), append(p50, p.P50Ms), append(cpu, p.CPU), append(lag, p.LagMs)
	}
	return hotRow{Rate: rate, Load: f, Thr: measure(thr), P50: measure(p50), CPU: measure(cpu), Lag: measure(lag)}, nil
}
