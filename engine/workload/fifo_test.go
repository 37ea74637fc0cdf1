package workload

import "testing"

// The fifo pops in push order and, in a steady state of pushes and pops,
// reuses its backing array: it compacts before it grows, and an emptied
// queue starts over at the front.
func TestFIFO_PopsInOrderAndReusesItsArray(t *testing.T) {
	tests := []struct {
		name string
		ops  string // p: push the next number, o: pop
		want []int  // the pops, in order
		len  int
	}{
		{"push-pop", "popo", []int{0, 1}, 0},
		{"fifo-order", "pppooo", []int{0, 1, 2}, 0},
		{"interleaved", "ppoppoo", []int{0, 1, 2}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q fifo[int]
			var got []int
			next := 0
			for _, op := range tc.ops {
				if op == 'p' {
					q.Push(next)
					next++
					if q.Last() != next-1 {
						t.Fatalf("Last = %d after pushing %d", q.Last(), next-1)
					}
					continue
				}
				if q.Len() > 0 && q.At(0) != q.buf[q.head] {
					t.Fatal("At(0) is not the front")
				}
				got = append(got, q.Pop())
			}
			if q.Len() != tc.len || len(got) != len(tc.want) {
				t.Fatalf("pops %v, len %d; want %v, len %d", got, q.Len(), tc.want, tc.len)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("pops %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestFIFO_SteadyStateAllocatesNothing(t *testing.T) {
	var q fifo[*int]
	x := new(int)
	for range 8 { // the queue's working size
		q.Push(x)
	}
	q.Push(x) // the first push past it grows the array once…
	q.Pop()
	c := cap(q.buf) // …and from then on the pops at the front make the room
	allocs := testing.AllocsPerRun(1000, func() {
		q.Push(x)
		q.Pop()
	})
	if allocs != 0 || cap(q.buf) != c {
		t.Errorf("%.1f allocations per push+pop, cap %d → %d; want none, unchanged", allocs, c, cap(q.buf))
	}
	for q.Len() > 0 {
		if q.Pop() != x {
			t.Fatal("wrong element")
		}
	}
	if q.head != 0 || len(q.buf) != 0 {
		t.Errorf("emptied queue: head %d, len %d; want it back at the front", q.head, len(q.buf))
	}
	for i, p := range q.buf[:cap(q.buf)] {
		if p != nil {
			t.Fatalf("slot %d still points at a popped element", i)
		}
	}
}
