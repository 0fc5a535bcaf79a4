package sim

import "math"

// windowCursor is the window of the latest event, cached so the hot path does not divide,
// and the stream latency windows still open (hist.go).
type windowCursor struct {
	wIdx         int
	wStart, wEnd Time
	touchW       int // the window touchQueue carries queues into: wIdx, or the last past the end
	// Windows before histOpen have their latency histograms built; histFree holds counts
	// arrays to reuse.
	histOpen int
	histFree [][]int64
	// detail is the range kept at a finer grain (detail.go), and ring the open windows of
	// a window sink (sink.go; nil: none): the other windows a run keeps open.
	detail fineRange
	ring   *sinkRing
}

// setWindow makes the window containing t (t >= 0) the current one. Past the end of the
// run the current window is -1 and reaches to the end of time.
func (e *engine) setWindow(t Time) {
	prev := e.wIdx
	if t >= e.m.Duration {
		e.wIdx, e.wStart, e.wEnd = -1, e.m.Duration, Time(math.MaxInt64)
	} else {
		e.wIdx = int(t / e.m.Window)
		e.wStart = Time(e.wIdx) * e.m.Window
		e.wEnd = min(e.wStart+e.m.Window, e.m.Duration)
	}
	e.touchW = e.wIdx
	if e.wIdx < 0 {
		e.touchW = e.res.Windows - 1
	}
	if len(e.windowed) > 0 && prev >= 0 && (e.wIdx < 0 || e.wIdx > prev) {
		for _, m := range e.windowed {
			m.windowEnd(e, t, prev)
		}
	}
	if e.wIdx-histWindowLag > e.histOpen {
		e.closeWindows(e.wIdx - histWindowLag)
	}
	if e.ring != nil {
		end := e.wIdx
		if end < 0 {
			end = e.res.Windows
		}
		e.closeShardWindows(end, true)
	}
}

// window returns the window index of t, or -1 past the end of the run. Times at or after
// the current event's are looked up without a division.
func (e *engine) window(t Time) int {
	if t >= e.wStart && t < e.wEnd {
		return e.wIdx
	}
	if t >= e.m.Duration || t < 0 {
		return -1
	}
	return int(t / e.m.Window)
}

// carry raises series[(x&mask)*stride+i], for the windows x after *last up to now's (the
// last window past the end of the run), to the queue length ql held through them, and makes
// now's window the last.
func (e *engine) carry(now Time, series []int32, stride, mask, i int, last *int, ql int32) {
	w := e.window(now)
	if w < 0 {
		w = e.res.Windows - 1
	}
	for x := *last + 1; x <= w; x++ {
		series[(x&mask)*stride+i] = max(series[(x&mask)*stride+i], ql)
	}
	*last = max(*last, w)
}
