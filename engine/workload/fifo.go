package workload

// fifo is a queue that reuses its backing array (no allocation in the
// steady state): the socket's receive queue, GRO's output.
type fifo[T any] struct {
	buf  []T
	head int
}

func (q *fifo[T]) Len() int { return len(q.buf) - q.head }

// At is the i-th element from the front.
func (q *fifo[T]) At(i int) T { return q.buf[q.head+i] }

// Last is the element at the back (the queue's tail).
func (q *fifo[T]) Last() T { return q.buf[len(q.buf)-1] }

func (q *fifo[T]) Push(x T) {
	if q.head > 0 && len(q.buf) == cap(q.buf) { // compact before growing
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	q.buf = append(q.buf, x)
}

func (q *fifo[T]) Pop() T {
	var zero T
	x := q.buf[q.head]
	q.buf[q.head] = zero
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
	return x
}
