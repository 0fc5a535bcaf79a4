package sim

import "math"

// windowCursor is the recorder's window of the latest event, cached so the hot path does
// not divide, and the stream latency windows still open (hist.go).
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
// run the current window is -1 and reaches to the end of time. The mechanisms that watch
// the windows see the one that ended before its latency windows and its sink window close.
func (e *engine) setWindow(t Time) {
	prev := e.moveCursor(t)
	if len(e.windowed) > 0 && prev >= 0 && (e.wIdx < 0 || e.wIdx > prev) {
		for _, h := range e.windowed {
			h.WindowEnd(Core{e}, t, prev)
		}
	}
	e.closeBehind(e.streams, &e.shardTable)
}

// moveCursor makes the window containing t the current one, and returns the one that was.
func (r *recorder) moveCursor(t Time) int {
	prev := r.wIdx
	if t >= r.res.Duration {
		r.wIdx, r.wStart, r.wEnd = -1, r.res.Duration, Time(math.MaxInt64)
	} else {
		r.wIdx = int(t / r.res.Window)
		r.wStart = Time(r.wIdx) * r.res.Window
		r.wEnd = min(r.wStart+r.res.Window, r.res.Duration)
	}
	r.touchW = r.wIdx
	if r.wIdx < 0 {
		r.touchW = r.res.Windows - 1
	}
	return prev
}

// closeBehind closes the streams' latency windows the cursor has left behind (histWindowLag)
// and, with a sink, hands it the shard windows before the current one, the shards' queues
// carried into them.
func (r *recorder) closeBehind(streams []streamState, shards *shardTable) {
	if r.wIdx-histWindowLag > r.histOpen {
		r.closeWindows(streams, r.wIdx-histWindowLag)
	}
	if r.ring != nil {
		end := r.wIdx
		if end < 0 {
			end = r.res.Windows
		}
		r.closeShardWindows(end, shards)
	}
}

// window returns the window index of t, or -1 past the end of the run. Times at or after
// the current event's are looked up without a division.
func (r *recorder) window(t Time) int {
	if t >= r.wStart && t < r.wEnd {
		return r.wIdx
	}
	if t >= r.res.Duration || t < 0 {
		return -1
	}
	return int(t / r.res.Window)
}

// carry raises series[(x&mask)*stride+i], for the windows x after *last up to now's (the
// last window past the end of the run), to the queue length ql held through them, and makes
// now's window the last.
func (r *recorder) carry(now Time, series []int32, stride, mask, i int, last *int, ql int32) {
	w := r.window(now)
	if w < 0 {
		w = r.res.Windows - 1
	}
	for x := *last + 1; x <= w; x++ {
		series[(x&mask)*stride+i] = max(series[(x&mask)*stride+i], ql)
	}
	*last = max(*last, w)
}
