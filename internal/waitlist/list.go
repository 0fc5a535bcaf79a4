package waitlist

// Link is an element's place in a doubly linked list threaded through a slice by index:
// its neighbours, -1 at the ends. A list's links are kept in a slice of their own beside
// its elements (the cache's entries, the row locks' waiting subrequests), so that one
// list serves them all and linking allocates nothing.
type Link struct{ Prev, Next int32 }

// List is the ends of such a list, -1 when it is empty.
type List struct{ Head, Tail int32 }

// Empty is a list with no element.
var Empty = List{Head: -1, Tail: -1}

// Remove takes element i out of the list.
func (l *List) Remove(links []Link, i int32) {
	k := &links[i]
	if k.Prev >= 0 {
		links[k.Prev].Next = k.Next
	} else {
		l.Head = k.Next
	}
	if k.Next >= 0 {
		links[k.Next].Prev = k.Prev
	} else {
		l.Tail = k.Prev
	}
	k.Prev, k.Next = -1, -1
}

// PushFront makes element i, in no list, the list's first.
func (l *List) PushFront(links []Link, i int32) {
	links[i] = Link{Prev: -1, Next: l.Head}
	if l.Head >= 0 {
		links[l.Head].Prev = i
	}
	l.Head = i
	if l.Tail < 0 {
		l.Tail = i
	}
}

// PushBack makes element i, in no list, the list's last.
func (l *List) PushBack(links []Link, i int32) {
	links[i] = Link{Prev: l.Tail, Next: -1}
	if l.Tail >= 0 {
		links[l.Tail].Next = i
	} else {
		l.Head = i
	}
	l.Tail = i
}
