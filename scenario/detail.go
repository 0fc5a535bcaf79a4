package scenario

import (
	"fmt"
	"strings"

	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// maxFineWindows bounds a detail range's windows: each costs every stream a histogram.
const maxFineWindows = 10_000

// resolveDetail checks the detail table: from and to are instants inside the run, on
// window boundaries, from before to; window divides the run's window and is shorter than
// it (default "5s"). A range that reaches past the end of the run is refused, unless
// --duration shortened the run (File.Shortened): then it is cut at the new end, and kept
// nowhere if it starts after it. A range that a start moved by the command line has passed
// (File.Moved) is cut at the new start in the same way, and one that a moved start puts
// past the end is cut at the end.
func resolveDetail(c *checker, f *File, s *Resolved) {
	d := f.Detail
	if d == nil {
		return
	}
	before := len(c.probs)
	from, to := c.instant("detail.from", d.From, s.Start), c.instant("detail.to", d.To, s.Start)
	win := c.duration("detail.window", d.Window, "5s", 1)
	if len(c.probs) > before || s.Duration <= 0 || s.Window <= 0 {
		return
	}
	if t, ok := passed(f, s, d.From, from); ok {
		// The command line moved the start past the range's start: it begins with the run,
		// or is kept nowhere when it ended before.
		if t2, ok := passed(f, s, d.To, to); ok {
			to = t2
		}
		if to <= 0 {
			return
		}
		from = max(t, 0)
	}
	if problem, key := detailProblem(f, s, from, to, win); problem != "" {
		c.add(key, "%s", problem)
	} else if from < s.Duration {
		s.Detail = sim.Detail{From: from, To: min(to, s.Duration), Window: win}
	}
}

// detailProblem says what is wrong with a detail range from..to of windows win, and at
// which key; "" when it is fit to keep.
func detailProblem(f *File, s *Resolved, from, to, win sim.Time) (problem, key string) {
	d := f.Detail
	end, window := units.Clock(s.Start, s.Duration, units.TimeOfDay), orDefault(f.Window.Text, defaultWindow)
	switch {
	case win >= s.Window || s.Window%win != 0:
		return fmt.Sprintf("must divide the run's window %s into shorter windows (got %q)", window, d.Window), "detail.window"
	case from >= s.Duration && !pastEnd(f):
		return fmt.Sprintf("must be inside the run, which ends at %s (got %q)", end, d.From), "detail.from"
	case to <= from:
		return fmt.Sprintf("must come after detail.from %q, within the run (got %q)", d.From, d.To), "detail.to"
	case to > s.Duration && !pastEnd(f):
		return fmt.Sprintf("must be at most the run's end, %s (got %q)", end, d.To), "detail.to"
	case from%s.Window != 0:
		return fmt.Sprintf("must be on a window boundary (a multiple of window = %s from the start), so that the fine windows tile whole windows (got %q)", window, d.From), "detail.from"
	case to%s.Window != 0 && to < s.Duration:
		return fmt.Sprintf("must be on a window boundary (a multiple of window = %s from the start) or the run's end (got %q)", window, d.To), "detail.to"
	case (min(to, s.Duration)-from)/win > maxFineWindows:
		return fmt.Sprintf("gives %d windows over the range; at most %d are allowed (got %q)", (min(to, s.Duration)-from)/win, maxFineWindows, d.Window), "detail.window"
	}
	return "", ""
}

// passed reads instant i, which ParseInstant put at t (the next such time of day at or
// after the start), as the same time before the start, a negative time, when the command
// line moved the start past it (File.Moved): a clock time whose next occurrence is past
// the end of the run and which lies within the 12 hours before the start (08:00 for a
// start moved to 08:10). A clock time in the 12 hours after the start is ahead of the run,
// not behind it, even when the run ends first (08:00 for a start moved to 07:55 and a run
// of 2 minutes): it returns t and false, as it does for every other instant.
func passed(f *File, s *Resolved, i Instant, t sim.Time) (sim.Time, bool) {
	if !f.Moved || !strings.Contains(i.Text, ":") || t < s.Duration || s.Duration <= 0 || t <= 12*sim.Hour {
		return t, false
	}
	return t - 24*sim.Hour, true
}

// pastEnd reports whether a time past the end of the run is cut or left unmeasured rather
// than refused: when the command line shortened the run (--duration) or moved its start
// (--set start), which can each put a time of the file after the new end.
func pastEnd(f *File) bool { return f.Shortened || f.Moved }
