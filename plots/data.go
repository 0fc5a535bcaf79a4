package plots

// Heat is a heat chart: time across, shards down, colour = load.
type Heat struct {
	Title string // e.g. "black-friday - before: shard load"
	// Times labels the windows' starts ("06:00", "06:01", ...); len = number of windows.
	Times []string
	// WindowSeconds is the width of a window in seconds (the x axis is in windows).
	WindowSeconds float64
	// Rows names the shards ("0", "1", ...), top to bottom.
	Rows []string
	// Load[r][w] is shard r's load in window w, a fraction (1 = 100% of its node's cores).
	Load [][]float64
	// Max is the top of the colour scale (1 = 100%), the same for every variant so that
	// charts compare; values above it are drawn in the top colour. 0 means 1.
	Max float64
}

// Bars is the shard load bars of several variants, one panel per variant stacked top to
// bottom, as in a hot-partition postmortem's before/after figure.
type Bars struct {
	Title  string
	Panels []BarPanel
	// Hot is the load above which a bar stands out in its own colour (0.9); ≤ 0 means
	// no threshold: no line and no bar stands out.
	Hot float64
}

// BarPanel is one variant's bars: Load[s] is shard s's load in that variant's peak window.
type BarPanel struct {
	Name   string // variant name, and the window it shows, e.g. "before (peak 08:15)"
	Load   []float64
	Labels []string // shard labels, same length as Load; nil labels shards 0, 1, …
}

// Lines is a time series chart: p99 latency over time, one line per variant.
type Lines struct {
	Title  string
	YLabel string // with unit, e.g. "p99 latency (ms)"
	// Times are the x positions in seconds since t=0, increasing; TimeLabel formats a
	// tick (nil: h:mm:ss since t=0).
	Times     []float64
	TimeLabel func(seconds float64) string
	Series    []Series
	LogY      bool
	// XLabel names the x axis ("time" when empty). XTicks, when set, labels the x position
	// Times[i] with XTicks[i] (a sweep's varied values) instead of TimeLabel, and marks
	// every point.
	XLabel string
	XTicks []string
	// SLO, when > 0, is drawn as a dashed horizontal line labelled RefLabel ("SLO" when
	// empty).
	SLO      float64
	RefLabel string
	// Refs are further thresholds, drawn like SLO, each labelled with its own Label at the
	// left end of its line; the legend names them once, as RefLabel ("SLO" when empty).
	Refs []Ref
	// Distinct draws each series with its own dash pattern and the earlier ones wider, so
	// that lines which coincide (variants with the same latency) stay visible at the edges
	// of the one above.
	Distinct bool
	// Numeric makes x a plain number axis (a load multiple): ticks at round values, log
	// when LogX. Series then usually carry their own X.
	Numeric, LogX bool
	// Marks are vertical dotted lines in their series' colour, labelled at the top (a
	// capacity answer).
	Marks []Mark
	// FlagLabel names the flagged points in the legend (default "replications disagree").
	FlagLabel string
}

// Ref is a horizontal reference line at Y (an SLO threshold), labelled Label.
type Ref struct {
	Y     float64
	Label string
}

// Mark is a vertical line at X in series Series' colour, with a short label.
type Mark struct {
	X      float64
	Series int
	Label  string
}

// Series is one named line. NaN values are gaps (a window with no completed requests).
// Lo and Hi, when set, draw an error bar from Lo[i] to Hi[i] at each point (a confidence
// interval); NaN bounds on both ends draw none. A bound beyond the axis (a low bound at or
// under 0 on a log axis, an infinite high bound) is cut at the axis and ends in an arrow
// head, so that the least certain points never look the most certain.
type Series struct {
	Name   string
	Y      []float64
	Lo, Hi []float64
	// X, when set, are the series' own x positions (increasing, one per value) in place
	// of Lines.Times, which then only spans the axis.
	X []float64
	// Flag, when set, circles the points where it is true (replications that disagree).
	Flag []bool
	// Stopped, when set, crosses the points where it is true: a run that saturated and
	// stopped early, whose value covers only the time before its stop (the legend says
	// "run stopped: saturated").
	Stopped []bool
	// Failing, when set, boxes the points where it is true: requests failed past the
	// error limit there, and a latency of the completed ones leaves them out (the legend
	// says "errors over limit"; the caption should say what it means).
	Failing []bool
	// Notes, when set, are written beside the failing points (the error rate there, so
	// that a latency of the completed requests is read with what failed); the line into
	// and between failing points is dashed.
	Notes []string
	// Dots are loose points in the series' colour, small rings without a line (each
	// replication's own value, around the line of their mean).
	Dots []Point
}

// Point is a point in data coordinates.
type Point struct{ X, Y float64 }

// CDF is a latency CDF chart: one curve per variant, log x in milliseconds.
type CDF struct {
	Title  string
	Curves []CDFCurve
}

// CDFCurve is one variant's distribution: points (latency ms, cumulative fraction 0..1)
// in increasing order, and its p50, p99 and p999 (ms) to mark. Note, when set, follows
// the curve's percentiles in the legend (how many of its requests failed, and so have no
// latency on the curve).
type CDFCurve struct {
	Name           string
	Ms, Fraction   []float64
	P50, P99, P999 float64
	Note           string
}
