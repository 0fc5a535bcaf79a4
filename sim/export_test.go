package sim

// RunBacklog runs m and returns its result and the backlog the engine counts once the run
// has ended (Core.Hold, Unhold), for the external tests of the mechanisms' mix.
func RunBacklog(m *Model) (*Result, int) {
	e := newEngine(m)
	e.run()
	return e.res, e.queued
}
