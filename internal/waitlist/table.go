package waitlist

import "math/bits"

// Entry is one held lock and its waiters.
type Entry struct {
	Key     uint64
	Waiters List // waiting subrequests, oldest first (their links: a slice beside the table, by slot)
	Used    bool // the slot holds a key
}

// Table holds the locks (row locks, page latches) held now, by key hash, in open addressing with linear probing.
// A key takes a slot only while its lock is held (a key with waiters has a holder), and
// gives it back when it is released with nobody waiting; deletion shifts the following
// entries back (Knuth, TAOCP vol. 3, 6.4, algorithm R), so there are no tombstones and a
// probe never walks past more than the keys held at once.
//
// Size: by Little's law the mean number of locks held at once is the locked writes'
// throughput times the mean hold, at most the sum over locked streams of peak rate x mean
// lock. compile sizes the row locks' table (Model.LockSlots) at four times that, so it is a quarter full
// on average and a probe looks at about one slot. A table more than half full doubles: an
// allocation once per new peak of keys locked at once, as the engine's pools grow, never
// per request.
type Table struct {
	Slots []Entry // by slot: the key held there, if Used, and its waiters
	mask  int
	N     int // keys held
}

// MinSlots is the smallest lock table: 1.5 KB.
const MinSlots = 64

// NewTable is an empty table of at least size slots (MinSlots at least, a power of two).
func NewTable(size int) Table {
	size = max(size, MinSlots)
	size = 1 << bits.Len(uint(size-1)) // a power of two
	return Table{Slots: make([]Entry, size), mask: size - 1}
}

// Find returns the slot of key, or -1 if its lock is free.
func (t *Table) Find(key uint64) int {
	for i := int(key) & t.mask; ; i = (i + 1) & t.mask {
		s := &t.Slots[i]
		if !s.Used {
			return -1
		}
		if s.Key == key {
			return i
		}
	}
}

// Insert adds key, which is not in the table, and returns its slot.
func (t *Table) Insert(key uint64) int {
	if 2*(t.N+1) > len(t.Slots) {
		t.grow()
	}
	i := int(key) & t.mask
	for t.Slots[i].Used {
		i = (i + 1) & t.mask
	}
	t.Slots[i] = Entry{Key: key, Waiters: Empty, Used: true}
	t.N++
	return i
}

// grow doubles the table.
func (t *Table) grow() {
	old := t.Slots
	t.Slots = make([]Entry, 2*len(old))
	t.mask = len(t.Slots) - 1
	for _, s := range old {
		if s.Used {
			i := int(s.Key) & t.mask
			for t.Slots[i].Used {
				i = (i + 1) & t.mask
			}
			t.Slots[i] = s
		}
	}
}

// Remove frees slot i, moving back each following entry of the cluster that would
// otherwise be cut off from its home slot.
func (t *Table) Remove(i int) {
	t.N--
	for {
		t.Slots[i].Used = false
		j := i
		for {
			j = (j + 1) & t.mask
			if !t.Slots[j].Used {
				return
			}
			// Entry j may fill the hole at i unless its home lies cyclically in (i, j].
			home := int(t.Slots[j].Key) & t.mask
			if (j-home)&t.mask >= (j-i)&t.mask {
				break
			}
		}
		t.Slots[i] = t.Slots[j]
		i = j
	}
}
