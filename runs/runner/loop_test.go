package runner

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// TestEachHandsEveryResult: every job's result reaches done once, under its own index,
// and Progress counts them up to the total.
func TestEachHandsEveryResult(t *testing.T) {
	var last, calls int
	l := New(Options{Parallel: 3, Progress: func(done, total int) {
		calls++
		if total != 10 || done != last+1 {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	}, Total: 10})
	got := make([]int, 10)
	err := Each(l, 10, func(i int) (int, error) { return i * i, nil }, func(i, r int) error { got[i] = r; return nil })
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		if r != i*i {
			t.Errorf("job %d handed %d, want %d", i, r, i*i)
		}
	}
	if calls != 10 {
		t.Errorf("progress told %d times, want 10", calls)
	}
}

// TestEachStopsAtDoneError: done's first error is returned and no job starts after it.
func TestEachStopsAtDoneError(t *testing.T) {
	bad := errors.New("disk full")
	var started atomic.Int64
	l := New(Options{Parallel: 1})
	err := Each(l, 10, func(i int) (int, error) { started.Add(1); return i, nil }, func(i, _ int) error {
		if i == 2 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) {
		t.Errorf("err %v, want %v", err, bad)
	}
	if n := started.Load(); n != 3 {
		t.Errorf("%d jobs started, want 3 (none after the failure)", n)
	}
	if !errors.Is(l.Err(), bad) || !l.Stopped() {
		t.Errorf("Err %v, Stopped %v: the loop should stop at done's error", l.Err(), l.Stopped())
	}
}

// TestEachInterrupted: once Stop reports true no result is handed on and Each returns
// ErrInterrupted; a loop of Every job runs and hands every one, and returns no error.
func TestEachInterrupted(t *testing.T) {
	var stop atomic.Bool
	job := func(i int) (int, error) {
		if i == 1 {
			stop.Store(true)
		}
		return i, nil
	}
	handed := 0
	l := New(Options{Parallel: 1, Stop: stop.Load})
	if err := Each(l, 5, job, func(int, int) error { handed++; return nil }); !errors.Is(err, ErrInterrupted) {
		t.Errorf("err %v, want ErrInterrupted", err)
	}
	if handed != 1 {
		t.Errorf("%d results handed on, want 1 (the one finished before the interrupt)", handed)
	}

	stop.Store(false)
	handed = 0
	l = New(Options{Parallel: 1, Stop: stop.Load, Every: true})
	if err := Each(l, 5, job, func(int, int) error { handed++; return nil }); err != nil {
		t.Errorf("err %v: a loop of every job reports no interrupt", err)
	}
	if handed != 5 {
		t.Errorf("%d results handed on, want every one of 5", handed)
	}
}

// TestEachJoinsJobErrors: the jobs' errors come back joined, and the other jobs still run.
func TestEachJoinsJobErrors(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	handed := 0
	err := Each(New(Options{Parallel: 2}), 4, func(i int) (int, error) {
		switch i {
		case 1:
			return 0, a
		case 3:
			return 0, b
		}
		return i, nil
	}, func(int, int) error { handed++; return nil })
	if !errors.Is(err, a) || !errors.Is(err, b) || handed != 2 {
		t.Errorf("err %v, %d handed; want both errors and the 2 other results", err, handed)
	}
}

// TestLengthen: an unsettled run is made again for the length its relaxation time needs,
// at least twice as long, until it settles; Again can refuse, and the budget bounds it.
func TestLengthen(t *testing.T) {
	run := func(elapsed, warmup, settle float64) *metrics.Run {
		return &metrics.Run{Elapsed: sec(elapsed), Warmup: sec(warmup), Nodes: []metrics.Node{{Settle: settle}}}
	}
	l := &Lengths{Multiple: 2}
	var asked [][2]float64
	got, err := l.Lengthen(run(60, 10, 10), func(d, w float64) (*metrics.Run, error) {
		asked = append(asked, [2]float64{d, w})
		return run(d, w, 10), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 20 relaxation times of 10 s with a 20% margin after a warmup of 3 of them: 30 + 240.
	if len(asked) != 1 || asked[0] != [2]float64{270, 30} || !l.Settled(got) {
		t.Errorf("asked %v, settled %v; want one run of 270 s after 30 s", asked, l.Settled(got))
	}
	if ov := l.Overrides(270, 30); len(ov) != 2 || ov[0].Value != `"270s"` || ov[1].Value != `"30s"` || ov[0].Flag != "capacity run length at multiple 2" {
		t.Errorf("overrides %+v", ov)
	}
	refused := &Lengths{Again: func(*metrics.Run) bool { return false }}
	if got, _ := refused.Lengthen(run(60, 10, 10), nil); got.Elapsed != sec(60) {
		t.Errorf("Again refused, yet the run was lengthened to %v", got.Elapsed)
	}
	small := &Lengths{Budget: 100 * time.Second}
	if got, _ := small.Lengthen(run(60, 10, 10), nil); got.Elapsed != sec(60) || small.Settled(got) {
		t.Errorf("a run over the budget was lengthened (%v) or judged settled", got.Elapsed)
	}
}

func sec(s float64) sim.Time { return sim.Time(s * float64(sim.Second)) }
