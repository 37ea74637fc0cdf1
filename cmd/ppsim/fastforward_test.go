package main

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestFastForward_GoldenCorpus: for every configuration of the golden
// corpus, `ppsim run --json` gives the same bytes with the steady-state
// fast-forward on (the default) and off (--set fast_forward=0), at 10^5 and
// 10^6 packets. engine/lab's TestFastForward_Skips shows which scenarios
// it skips in (so this test compares skipped runs, not only unskipped ones).
func TestFastForward_GoldenCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus at 10^6 packets takes a minute or two")
	}
	cases := goldenCases()
	type job struct {
		args    []string
		packets int
	}
	var jobs []job
	for _, c := range cases {
		for _, n := range []int{100_000, 1_000_000} {
			jobs = append(jobs, job{c, n})
		}
	}
	next := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	diffs := 0
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				var outs [2]string
				for i, extra := range [][]string{nil, {"--set", "fast_forward=0"}} {
					var out, errb bytes.Buffer
					a := append(append([]string{"run", "--json", "--packets", fmt.Sprint(j.packets)}, j.args...), extra...)
					if rc := run(a, &out, &errb); rc != 0 {
						t.Errorf("ppsim %s: exit %d: %s", strings.Join(a, " "), rc, errb.String())
					}
					outs[i] = out.String()
				}
				if outs[0] != outs[1] {
					mu.Lock()
					if diffs++; diffs <= 10 {
						t.Errorf("%s --packets %d: fast-forward changed the output\n  on: %s\n off: %s", strings.Join(j.args, " "), j.packets, outs[0], outs[1])
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	t.Logf("%d configurations × 2 lengths compared", len(cases))
}
