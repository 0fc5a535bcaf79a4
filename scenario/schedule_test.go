package scenario

import (
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// TestScheduleReading places schedules of clock times for several starts: the usual reading
// (each clock time the next at or after the start, so a schedule may cross midnight or lie
// ahead), the run that starts inside its schedule (the points before the start shape only
// the rate at t = 0, linear between the points around it), and the errors where neither
// reading holds. The expected rates at t = 0 are worked out by hand in the comments.
func TestScheduleReading(t *testing.T) {
	bf := []string{"06:00", "08:00", "08:30"} // black-friday's orders: 1,000, 10,000, 12,500/s
	bfRates := []float64{1000, 10000, 12500}
	night := []string{"22:00", "23:00", "01:00", "03:00"} // a schedule that crosses midnight
	nightRates := []float64{100, 200, 400, 100}
	p := func(at string, rate float64) workload.Point {
		d, err := units.ParseDuration(at)
		if err != nil {
			t.Fatal(err)
		}
		return workload.Point{At: int64(d), Rate: rate}
	}
	for _, c := range []struct {
		name, start string
		ats         []string
		rates       []float64
		want        workload.Schedule
		err         string // a part of the message, at the key errKey
		errKey      string
	}{
		{"black-friday as written", "06:00", bf, bfRates, workload.Schedule{p("0s", 1000), p("2h", 10000), p("2h30m", 12500)}, "", ""},
		// 1,000 + 9,000 x 115/120 = 9,625 at 07:55.
		{"start in the ramp", "07:55", bf, bfRates, workload.Schedule{p("0s", 9625), p("5m", 10000), p("35m", 12500)}, "", ""},
		{"start on a point", "08:00", bf, bfRates, workload.Schedule{p("0s", 10000), p("30m", 12500)}, "", ""},
		// After its last point, the schedule is the next day's, as it always was.
		{"start after the schedule", "09:00", bf, bfRates, workload.Schedule{p("21h", 1000), p("23h", 10000), p("23h30m", 12500)}, "", ""},
		{"crossing midnight from its first point", "22:00", night, nightRates, workload.Schedule{p("0s", 100), p("1h", 200), p("3h", 400), p("5h", 100)}, "", ""},
		{"crossing midnight, ahead", "04:00", night, nightRates, workload.Schedule{p("18h", 100), p("19h", 200), p("21h", 400), p("23h", 100)}, "", ""},
		// 200 + 200 x 30/120 = 250 at 23:30.
		{"crossing midnight, started before it", "23:30", night, nightRates, workload.Schedule{p("0s", 250), p("1h30m", 400), p("3h30m", 100)}, "", ""},
		// After midnight, 22:00 would be the day before: 200 + 200 x 90/120 = 350 at 00:30.
		{"crossing midnight, started after it", "00:30", night, nightRates, nil,
			`if the schedule is meant to cross midnight, the start ("00:30") falls inside it after midnight, which would put "22:00" on the day before the start, and a clock time never means a day before it: begin the schedule at the start instead, with { at = "00:30", rate = 350 } (its rate there) in place of the points before it, or start at "22:00", its first point`,
			"streams[0].schedule[2].at"},
		// A duration is since t = 0 whatever the reading: 1,000 + 9,000 x 115/120 = 9,625.
		{"a duration after the start", "07:55", []string{"06:00", "08:00", "1h"}, bfRates, workload.Schedule{p("0s", 9625), p("5m", 10000), p("1h", 12500)}, "", ""},
		{"the same clock time twice", "07:55", []string{"06:00", "06:00"}, []float64{1, 2}, nil, `"06:00" is not after the point before it)`, "streams[0].schedule[1].at"},
		// 07:00 would be the next day's, more than a day after 06:00.
		{"more than a day", "07:55", []string{"06:00", "08:00", "07:00"}, bfRates, nil, `"08:00" is not after the point before it)`, "streams[0].schedule[1].at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := minimal()
			f.Start = Clock{Text: c.start}
			var err error
			if f.Start.Value, err = units.ParseClock(c.start); err != nil {
				t.Fatal(err)
			}
			f.Duration = Dur("1d")
			f.Streams[0].Rate = nil
			for i, at := range c.ats {
				f.Streams[0].Schedule = append(f.Streams[0].Schedule, SchedulePoint{At: Instant{Text: at}, Rate: &c.rates[i]})
			}
			r, probs := Resolve(&f)
			if c.err != "" {
				if len(probs) != 1 || probs[0].Key != c.errKey || !strings.Contains(probs[0].Msg, c.err) {
					t.Fatalf("problems %v, want one at %s saying %q", probs, c.errKey, c.err)
				}
				return
			}
			if len(probs) > 0 {
				t.Fatalf("problems: %v", probs)
			}
			got := r.Streams[0].Schedule
			if len(got) != len(c.want) {
				t.Fatalf("schedule %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i].At != c.want[i].At || math.Abs(got[i].Rate-c.want[i].Rate) > 1e-9*c.want[i].Rate {
					t.Fatalf("schedule %v, want %v (point %d)", got, c.want, i)
				}
			}
			if got[0].At < 0 {
				t.Errorf("a point before the start: %v", got)
			}
		})
	}
}
