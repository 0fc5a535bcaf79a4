package waitlist

// FIFO is a growable ring buffer of slots. Its length is a power of two, so an index wraps
// with a mask rather than a division; it grows by doubling and never shrinks, so in steady
// state it does not allocate.
type FIFO struct {
	buf        []int32
	head, size int
}

// Len is the number of slots in the ring.
func (q *FIFO) Len() int { return q.size }

// Push puts v last.
func (q *FIFO) Push(v int32) {
	if q.size == len(q.buf) {
		nb := make([]int32, max(16, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)&(len(q.buf)-1)] = v
	q.size++
}

// Peek is the first slot, which must be there.
func (q *FIFO) Peek() int32 { return q.buf[q.head] }

// Pop takes the first slot, which must be there, out.
func (q *FIFO) Pop() int32 {
	v := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.size--
	return v
}
