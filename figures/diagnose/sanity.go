package diagnose

import (
	"fmt"
	"strconv"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// Sanity warns, before any run, of a design the utilization law says cannot work: each
// node predicted past its cores at peak and, with a ceiling (0: none), each node past
// it (capacity and sweep judge none of its loads an answer, docs/capacity.md,
// "Headroom"); then, where any node is, the stream that offers the most work (rate x
// cost x partitions), with a hint when its cost alone needs more cores than the cluster
// has but a thousandth of it would not: a cost typed in seconds for milliseconds
// ("0.6s" for "0.6ms") passes every check but this one.
func Sanity(p *metrics.Prediction, ceiling float64) []string {
	var out []string
	cores := 0
	for _, l := range p.Nodes {
		cores += l.Cores
		switch {
		case l.Peak > 1:
			out = append(out, fmt.Sprintf("node %d is predicted at %s of its %d cores at peak: past its cores, its queue grows without bound",
				l.ID, units.Percent(l.Peak, 1), l.Cores))
		case ceiling > 0 && ceiling < 1 && l.Peak > ceiling:
			out = append(out, fmt.Sprintf("node %d is predicted at %s of its %d cores at peak: past the %s ceiling that capacity and sweep hold a node to (--max-utilization)",
				l.ID, units.Percent(l.Peak, 1), l.Cores, units.Percent(ceiling, 0)))
		}
	}
	if len(out) == 0 {
		return nil
	}
	top := -1
	for i, st := range p.Streams {
		if top < 0 || st.Work > p.Streams[top].Work {
			top = i
		}
	}
	if top < 0 || p.Streams[top].Work <= 0 {
		return out
	}
	st := p.Streams[top]
	line := fmt.Sprintf("stream %s offers the most work: %s/s x %s x %s partitions = %s cores at its peak rate, of the cluster's %d",
		st.Name, units.Count(int64(st.PeakRate+0.5)), costWords(st.Cost.Seconds()), strconv.FormatFloat(st.Partitions, 'f', 1, 64),
		strconv.FormatFloat(st.Work, 'f', 1, 64), cores)
	if st.Work > float64(cores) && st.Work/1000 <= float64(cores) && st.Cost.Seconds() >= 1e-3 {
		line += fmt.Sprintf("; a cost a thousand times smaller (%s rather than %s) would offer %s: is its cost in the wrong unit?",
			costWords(st.Cost.Seconds()/1000), costWords(st.Cost.Seconds()), strconv.FormatFloat(st.Work/1000, 'f', 1, 64))
	}
	return append(out, line)
}

// costWords writes a cost in the unit a scenario would give it: "0.6ms", "0.6s", "50us".
func costWords(sec float64) string {
	switch {
	case sec >= 0.1:
		return strconv.FormatFloat(sec, 'g', 4, 64) + "s"
	case sec >= 1e-4:
		return strconv.FormatFloat(sec*1e3, 'g', 4, 64) + "ms"
	}
	return strconv.FormatFloat(sec*1e6, 'g', 4, 64) + "us"
}
