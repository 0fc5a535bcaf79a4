package latch

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The page latch's keys ([table] page_latch, page_rows: docs/mitigations.md, "Hot index
// page"), their checks, and the setting they turn into (PageLatch, latch.go).

var (
	pageLatchKey = scenario.TableKey[scenario.Duration]("page_latch", "none",
		"how long an insert holds the latch of its B-tree leaf page (a duration up to 1s, e.g. `\"20us\"`): inserts to one page take turns, and a time-ordered key sends every insert of a key prefix to the rightmost page, at most 1/`page_latch` a second (docs/mitigations.md, \"Page latch\")")
	pageRowsKey = scenario.TableKey[*int64]("page_rows", "`100`",
		"rows a leaf page holds (1 to 1,000,000), for the pages of inserts that do not append; needs `page_latch`")
)

const (
	defaultPageRows = 100
	maxPageRows     = 1_000_000
	maxPageLatch    = sim.Second // a latch is held for microseconds; a second is already absurd
)

func init() { scenario.RegisterMechanism(resolvePageLatch) }

// resolvePageLatch turns the page latch on when [table] page_latch is given.
func resolvePageLatch(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	hold, on := pageLatchKey.In(f.Table.Ext)
	rows, rowsGiven := pageRowsKey.In(f.Table.Ext)
	if !on {
		if rowsGiven {
			c.Add("table.page_rows", "is read only with table.page_latch, the time an insert holds its page's latch (add page_latch = \"20us\", or remove page_rows)")
		}
		return
	}
	set := PageLatch{Hold: c.Duration("table.page_latch", hold, "", 1), Rows: defaultPageRows}
	if set.Hold > maxPageLatch {
		c.Add("table.page_latch", "must be at most 1s (got %q): a page latch is held for microseconds", hold.Text)
		return
	}
	if rowsGiven {
		if r := *rows; r < 1 || r > maxPageRows {
			c.Add("table.page_rows", "must be a whole number from 1 to %d (got %d)", maxPageRows, r)
			return
		}
		set.Rows = *rows
	}
	if set.Hold > 0 {
		s.Mechanisms = append(s.Mechanisms, set)
	}
}
