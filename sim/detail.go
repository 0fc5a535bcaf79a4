package sim

// Detail is a range of the run, [From, To), over which every stream's latencies are also
// kept in windows of Window, finer than Model.Window: a p99 that climbs within one window
// shows when it passed each threshold. Window 0 means no detail. From and To are offsets
// from the start; the range is cut at the run's Duration.
type Detail struct {
	From, To, Window Time
}

// FineWindows returns the number of fine windows in the range (0 without one).
func (d Detail) FineWindows() int {
	if d.Window <= 0 || d.To <= d.From {
		return 0
	}
	n := (d.To - d.From) / d.Window
	return int(n + min((d.To-d.From)%d.Window, 1))
}

// FineStart returns the start of fine window i, an offset from the run's start.
func (d Detail) FineStart(i int) Time { return d.From + Time(i)*d.Window }

// fineRange is the run's detail range (Model.Detail cut at the run's end) and its number
// of fine windows, n; n is 0 without one.
type fineRange struct {
	Detail
	n int
}

// fineState is a stream's open fine windows: their counts in the window layout, dense,
// for the two latest fine windows (index i&1), so that a request costs one increment;
// the windows before open are compacted into StreamResult.Fine.
type fineState struct {
	counts [2][]int64
	open   int
}

// initDetail cuts the detail range d at the run's end and allocates every stream's fine
// state: two dense arrays a stream (56 KB) and one WindowHist header a fine window.
func (r *recorder) initDetail(d Detail, streams []streamState) {
	d.To = min(d.To, r.res.Duration)
	if d.FineWindows() == 0 {
		return
	}
	r.detail = fineRange{Detail: d, n: d.FineWindows()}
	for i := range streams {
		st := &streams[i]
		st.fine = &fineState{counts: [2][]int64{make([]int64, windowLayout.countsN), make([]int64, windowLayout.countsN)}}
		st.out.Fine = make([]WindowHist, r.detail.n)
	}
	r.res.Detail = d
}

// countFine counts latency us (microseconds) of a success answered at t into stream st's
// fine window, when t falls in the detail range. Answers arrive nearly in time order, so
// a fine window is compacted once a later one has begun after it; a late answer for a
// compacted window is inserted into its histogram (rare: it may allocate).
func (r *recorder) countFine(st *streamState, t Time, us int64) {
	if t < r.detail.From || t >= r.detail.To {
		return
	}
	f := st.fine
	i := int((t - r.detail.From) / r.detail.Window)
	if i < f.open {
		st.out.Fine[i].record(us)
		return
	}
	for i >= f.open+2 {
		st.closeFine()
	}
	f.counts[i&1][windowLayout.index(us)]++
}

// closeFine compacts the stream's oldest open fine window.
func (st *streamState) closeFine() {
	f := st.fine
	c := f.counts[f.open&1]
	st.out.Fine[f.open] = compactHist(c)
	clear(c)
	f.open++
}

// endDetail compacts every stream's open fine windows at the end of the run.
func (r *recorder) endDetail(streams []streamState) {
	for i := range streams {
		st := &streams[i]
		if st.fine == nil {
			continue
		}
		for st.fine.open < r.detail.n {
			st.closeFine()
		}
		st.fine = nil
	}
}
