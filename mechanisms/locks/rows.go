package locks

import "github.com/shardsim/shardsim/sim"

// Rows chooses the row a locked write locks: given the hash of the partition key it
// writes, the hash of the row whose lock it takes (the key's own for a plain write). A
// job queue's claim (mechanisms/queue) is one: its key names the queue, and the row it
// locks is the queue's oldest job, which the claim chooses. Row is called once per
// request, as the request is issued, and must allocate nothing. Own and Head say what the
// stream's figures say of its rows (metrics.LockCounts' OwnRows and QueueHead): that every
// write locks a row of its own (none is offered another's: SKIP LOCKED), or that every
// write wants the one row at the queue's head.
type Rows interface {
	Row(h uint64) uint64
	Own() bool
	Head() bool
}

// ChooseRows makes every locked write of stream i lock the row that rows chooses (Rows)
// instead of its key's own: all that another setting may ask of row locks, which then
// wait, grant, time out and report as for any row. Call it from the setting's On, which
// runs after RowLocks' (RowLocks comes before it in Model.Mechanisms); it reports false
// when stream i takes no row locks, and changes nothing then.
func ChooseRows(c sim.Core, i int, rows Rows) bool {
	l, _ := c.Handler(evLockRelease).(releases)
	if l.rowLocks == nil || l.streams[i] == nil {
		return false
	}
	st := l.streams[i]
	st.rows = rows
	st.out.OwnRows, st.out.QueueHead = rows.Own(), rows.Head()
	return true
}
