package sim

// link is an element's place in a doubly linked list threaded through a slice by index:
// its neighbours, -1 at the ends. A list's links are kept in a slice of their own beside
// its elements (the cache's entries, the row locks' waiting subrequests), so that one
// list serves them all and linking allocates nothing.
type link struct{ prev, next int32 }

// list is the ends of such a list, -1 when it is empty.
type list struct{ head, tail int32 }

// emptyList is a list with no element.
var emptyList = list{head: -1, tail: -1}

// remove takes element i out of the list.
func (l *list) remove(links []link, i int32) {
	k := &links[i]
	if k.prev >= 0 {
		links[k.prev].next = k.next
	} else {
		l.head = k.next
	}
	if k.next >= 0 {
		links[k.next].prev = k.prev
	} else {
		l.tail = k.prev
	}
	k.prev, k.next = -1, -1
}

// pushFront makes element i, in no list, the list's first.
func (l *list) pushFront(links []link, i int32) {
	links[i] = link{prev: -1, next: l.head}
	if l.head >= 0 {
		links[l.head].prev = i
	}
	l.head = i
	if l.tail < 0 {
		l.tail = i
	}
}

// pushBack makes element i, in no list, the list's last.
func (l *list) pushBack(links []link, i int32) {
	links[i] = link{prev: l.tail, next: -1}
	if l.tail >= 0 {
		links[l.tail].next = i
	} else {
		l.head = i
	}
	l.tail = i
}
