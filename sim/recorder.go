package sim

// recorder is what a run records, apart from what it simulates: the Result it builds, the
// window cursor that puts each figure in its window (window.go), the open latency windows
// (hist.go) and fine windows (detail.go), a window sink's ring (sink.go), the node series'
// own bookkeeping (the capacity log, and whether NodeBusy is counted as the run goes), the
// mechanisms' wait counters (waits.go) and when the run is next watched (watch.go). It
// holds no engine: its methods take the streams and tables they read as arguments. It is
// an embedded value of the engine, so its fields cost the hot path nothing more than the
// engine's own.
type recorder struct {
	res *Result
	windowCursor
	warmup    Time         // Model.Warmup, at hand for the per-subrequest count of start
	trackNode bool         // NodeBusy is recorded as the run goes (replicas, moves)
	coreLog   []coreChange // cores changed by actions and joining nodes, in time order
	// wMask lays out the shard series of the Result by window: window w at row w&wMask
	// (a sink's ring of open windows) or w (-1, every window kept).
	wMask int
	// waitCounters count the waits the mechanisms report (waits.go).
	waitCounters []*WaitCounter
	nextWatch    Time // when Model.Watch is next called (watch.go)
}
