package report

import "strings"

// Folding a long timeline. A reader of a story needs to see what was done and when the
// trouble ended as much as when it began: an operator action, a run's stop and an alert's
// clearing always stay in view, while alerts that repeat one another give way. Alerts of
// one kind raised at the same minute (a latency threshold crossed by sibling streams in the
// same window, every stream's first rejections) say one thing, and are merged into one line
// before anything is folded.

// kept reports whether an entry of the timeline stays in view when the timeline is folded:
// a scenario's operator action, a run's stop, or an alert's clearing.
func kept(e entry) bool {
	return e.kind == "action" || e.kind == "saturated" || strings.HasSuffix(e.kind, "_cleared")
}

// streamKinds are the alerts about a stream: those that sibling streams raise together
// when one shard or node is in trouble. Alerts about nodes and shards stay a line each (a
// run of hundreds of nodes would make a line of hundreds), and so do events.
var streamKinds = map[string]bool{"latency": true, "errors": true, "throttled": true, "timed_out": true, "lock_timeout": true}

// mergeSiblings merges the stream alerts of one kind raised at the same minute into one
// entry: their messages joined by "; ", and their detections kept once when they agree
// (else each message keeps its own). Other alerts and events are never merged.
func mergeSiblings(tl []entry) []entry {
	var out []entry
	for i := 0; i < len(tl); {
		j := i + 1
		for !tl[i].event && streamKinds[tl[i].kind] && j < len(tl) && !tl[j].event && tl[j].kind == tl[i].kind && tl[j].at == tl[i].at {
			j++
		}
		if j == i+1 {
			out = append(out, tl[i])
			i++
			continue
		}
		m := tl[i]
		same := true
		for _, e := range tl[i+1 : j] {
			same = same && e.detection == m.detection
		}
		parts := make([]string, 0, j-i)
		for _, e := range tl[i:j] {
			p := e.message
			if !same && e.detection != "" {
				p += " (" + e.detection + ")"
			}
			parts = append(parts, p)
		}
		m.message = strings.Join(parts, "; ")
		if !same {
			m.detection = ""
		}
		out = append(out, m)
		i = j
	}
	return out
}

// foldTimeline splits tl into the entries to show when at most limit fit and those folded
// away, each in time order. A timeline within limit is shown whole; a longer one first has
// its sibling alerts merged, then keeps every kept entry and fills the rest of limit with
// the earliest others. When the kept entries alone pass limit (hundreds of clearings in a
// run of hundreds of nodes), the earliest limit entries are shown.
func foldTimeline(tl []entry, limit int) (shown, folded []entry) {
	if len(tl) <= limit {
		return tl, nil
	}
	tl = mergeSiblings(tl)
	if len(tl) <= limit {
		return tl, nil
	}
	must := 0
	for _, e := range tl {
		if kept(e) {
			must++
		}
	}
	if must >= limit {
		return tl[:limit], tl[limit:]
	}
	room := limit - must
	for _, e := range tl {
		switch {
		case kept(e):
			shown = append(shown, e)
		case room > 0:
			shown = append(shown, e)
			room--
		default:
			folded = append(folded, e)
		}
	}
	return shown, folded
}
