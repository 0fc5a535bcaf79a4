package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// A schedule's clock times are read, as every instant of a scenario, as the next such time
// of day at or after the start (ParseInstant): with start = "22:00", a schedule of 22:00,
// 23:00 and 01:00 runs from t = 0 to three hours in. A start moved into a schedule's ramp
// (black-friday's 06:00, 08:00, 08:30 with start = "07:55") would then put the points
// before it on the next day, out of order. scheduleReading is the other reading, taken only
// when the usual one is out of order, so every schedule that was valid keeps its meaning:
// the points at the head of the schedule whose clock times come before the start's on the
// same day are before t = 0, and the whole schedule spans less than a day. The run then starts inside the schedule, at the rate the
// schedule has at the start (fromStart).
type scheduleReading struct {
	// at is each point's time from t = 0 under that reading (negative before the start),
	// or nil when the usual reading stands (it is in order, or the other one is not).
	at []sim.Time
	// hint is what to do, added to the out-of-order message, when the start falls inside a
	// schedule of clock times after the schedule crosses midnight: its first points would be
	// on the day before the start, which a clock time never means. "" when not.
	hint string
}

// readSchedule decides how a schedule's points are placed (see scheduleReading). It reports
// no problem itself: resolveRate does, point by point.
func readSchedule(pts []SchedulePoint, start sim.Time) scheduleReading {
	n := len(pts)
	at, clock, ok := pointTimes(pts, start)
	if !ok {
		return scheduleReading{}
	}
	last := 0 // the last point that is not after the one before it in the usual reading
	for i := 1; i < n; i++ {
		if at[i] <= at[i-1] {
			last = i
		}
	}
	if last == 0 {
		return scheduleReading{}
	}
	// The points before the last break, read earlier on the start's day; the others, from
	// the last break on, are in order already.
	inside := append([]sim.Time(nil), at...)
	ok = true
	for i := 0; i < last && ok; i++ {
		inside[i] = clock[i] - start
		ok = clock[i] >= 0 && clock[i] < start && (i == 0 || inside[i] > inside[i-1])
	}
	// A schedule that begins before the start spans less than a day, so that no clock time
	// after the start is read as the next day's when it could be the same day's.
	if ok && inside[n-1]-inside[0] < 24*sim.Hour {
		return scheduleReading{at: inside}
	}
	return scheduleReading{hint: midnightHint(pts, clock, start)}
}

// pointTimes reads each point's time in the usual reading, and the time of day of a clock
// point (-1 for a duration); false when a point has no time or one before the start.
func pointTimes(pts []SchedulePoint, start sim.Time) (at, clock []sim.Time, ok bool) {
	at = make([]sim.Time, len(pts))
	clock = make([]sim.Time, len(pts))
	for i, p := range pts {
		if !p.At.Set() {
			return nil, nil, false
		}
		var err error
		if at[i], err = p.At.At(start); err != nil || at[i] < 0 {
			return nil, nil, false
		}
		clock[i] = -1
		if strings.Contains(p.At.Text, ":") {
			clock[i], _ = units.ParseClock(p.At.Text) // parsed once already by At
		}
	}
	return at, clock, true
}

// midnightHint says what to do when the start falls inside a schedule of clock times after
// it crosses midnight. The schedule is read there as the clock runs from its first point,
// each point the next such time after the one before (less than a day in all), only to
// find the rate it has at the start, which the hint offers as the schedule's first point.
func midnightHint(pts []SchedulePoint, clock []sim.Time, start sim.Time) string {
	day := 24 * sim.Hour
	var along workload.Schedule
	var q sim.Time
	for i, c := range clock {
		if c < 0 || pts[i].Rate == nil || !(*pts[i].Rate >= 0) || math.IsInf(*pts[i].Rate, 0) {
			return ""
		}
		if i > 0 {
			step := (c - clock[i-1] + day) % day
			if step == 0 {
				return ""
			}
			q += step
		}
		along = append(along, workload.Point{At: int64(q), Rate: *pts[i].Rate})
	}
	b := (start - clock[0] + day) % day // where the start falls, from the first point
	if q >= day || b == 0 || b > q {
		return ""
	}
	r := strconv.FormatFloat(math.Round(along.Rate(int64(b))*1000)/1000, 'f', -1, 64)
	s := units.Clock(start, 0, units.TimeOfDay)
	return fmt.Sprintf("if the schedule is meant to cross midnight, the start (%q) falls inside it after midnight, which would put %q on the day before the start, "+
		"and a clock time never means a day before it: begin the schedule at the start instead, with { at = %q, rate = %s } (its rate there) "+
		"in place of the points before it, or start at %q, its first point", s, pts[0].At, s, r, pts[0].At)
}

// fromStart is a schedule placed by scheduleReading, cut at t = 0: the points before the
// start give way to one point at t = 0 with the rate the schedule has there (linear between
// the points around it), so they shape only that rate (and not, say, the table's history
// before the start, which takes the rate at t = 0).
func fromStart(s workload.Schedule) workload.Schedule {
	i := 0
	for i < len(s) && s[i].At < 0 {
		i++
	}
	out := make(workload.Schedule, 0, len(s)-i+1)
	if i == len(s) || s[i].At > 0 {
		out = append(out, workload.Point{At: 0, Rate: s.Rate(0)})
	}
	return append(out, s[i:]...)
}
