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
// fast-forward on (the default) and off (--set fast_forward=0) at 10^5
// packets, and for every eighth configuration also at 10^6. engine/lab's
// TestFastForward_Skips shows which scenarios it skips in (so this test
// compares skipped runs, not only unskipped ones).
//
// Why an eighth at 10^6: the corpus lists each scenario × driver's eras
// one after the other, so every eighth configuration still covers every
// scenario, every driver and every era (the test checks it), each
// scenario × driver in about an eighth of its eras; engine/lab's
// TestFastForward_EveryEra compares every driver scenario in every era at
// 10^6. The whole corpus at 10^6 was 85% of this test's time (1657
// configurations: about 8 minutes of CPU on two cores), a quarter of it
// still 70% (1670 configurations, 200 s on two cores).
func TestFastForward_GoldenCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus at 10^5 and an eighth of it at 10^6 packets take a minute or two")
	}
	cases := goldenCases()
	type job struct {
		args    []string
		packets int
	}
	var jobs []job
	long := 0
	for i, c := range cases {
		jobs = append(jobs, job{c, 100_000})
		if i%8 == 0 {
			jobs = append(jobs, job{c, 1_000_000})
			long++
		}
	}
	// The sample's claim: every scenario, driver and era is in it.
	all, sampled := map[string]bool{}, map[string]bool{}
	for _, j := range jobs {
		for i := 0; i+1 < len(j.args); i += 2 {
			if f := j.args[i]; f == "--scenario" || f == "--driver" || f == "--era" {
				all[f+" "+j.args[i+1]] = true
				if j.packets == 1_000_000 {
					sampled[f+" "+j.args[i+1]] = true
				}
			}
		}
	}
	for k := range all {
		if !sampled[k] {
			t.Errorf("no configuration with %s is compared at 10^6 packets", k)
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
	t.Logf("%d configurations compared at 10^5 packets, %d of them also at 10^6", len(cases), long)
}
