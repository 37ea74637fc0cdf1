package main

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"pplab/engine/lab"
)

// TestFastForward_GoldenCorpus: for every configuration of the golden
// corpus, `ppsim run --json` gives the same bytes with the steady-state
// fast-forward on (the default) and off (--set fast_forward=0) at 10^5
// packets, and for every ffLongStride()-th configuration (every eighth)
// also at 10^6. engine/lab's TestFastForward_Skips shows which scenarios it
// skips in (so this test compares skipped runs, not only unskipped ones).
//
// Why an eighth at 10^6: the corpus lists each scenario × driver's eras
// one after the other, so a stride coprime with the era count still covers
// every scenario, every driver and every era (TestGolden_SamplesReachEveryEra
// checks it), each scenario × driver in about an eighth of its eras;
// engine/lab's TestFastForward_EveryEra compares every driver scenario in
// every era at 10^6. The whole corpus at 10^6 was 85% of this test's time
// (1657 configurations: about 8 minutes of CPU on two cores), a quarter of
// it still 70% (1670 configurations, 200 s on two cores).
//
// A run whose fast-forward is off from its first point (ffOffFromTheStart:
// a rule broken, destroy's run that ends on its own, a violation in the
// first 64 operations — a third of the corpus) runs the same operations on
// and off, so comparing it is running one run twice: those configurations
// are compared only where they fall in the 10^6 sample, and there at 10^5,
// which keeps the claim checked for every reason the fast-forward stops
// (the test logs how many of each it left out).
//
// It runs beside TestGolden (both parallel tests), the 10^6 pairs first,
// so that the two cores stay busy to the end.
func TestFastForward_GoldenCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus at 10^5 and an eighth of it at 10^6 packets take a minute or two")
	}
	t.Parallel()
	cases := goldenCases()
	type job struct {
		args    []string
		packets int64
		probe   bool // left out if the fast-forward is off from the first point
	}
	var jobs []job
	long, stride := ffLongSample(cases)
	for _, i := range long { // the long runs first
		jobs = append(jobs, job{cases[i], 1_000_000, true})
	}
	for i, c := range cases {
		jobs = append(jobs, job{c, 100_000, !slices.Contains(long, i)})
	}
	// The sample's claim, every scenario, driver and era at 10^6, is
	// TestGolden_SamplesReachEveryEra's to check.
	next := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	diffs := 0
	compared := map[int64]int{}
	leftOut := map[string]int{}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				if j.probe {
					why, err := ffOffFromTheStart(j.args, j.packets)
					if err != nil {
						t.Error(err)
						continue
					}
					if why != "" {
						mu.Lock()
						leftOut[fmt.Sprintf("%s (at 10^%d)", why, len(fmt.Sprint(j.packets))-1)]++
						mu.Unlock()
						continue
					}
				}
				var outs [2]string
				for i, extra := range [][]string{nil, {"--set", "fast_forward=0"}} {
					var out, errb bytes.Buffer
					a := append(append([]string{"run", "--json", "--packets", fmt.Sprint(j.packets)}, j.args...), extra...)
					if rc := run(a, &out, &errb); rc != 0 {
						t.Errorf("ppsim %s: exit %d: %s", strings.Join(a, " "), rc, errb.String())
					}
					outs[i] = out.String()
				}
				mu.Lock()
				compared[j.packets]++
				if outs[0] != outs[1] {
					if diffs++; diffs <= 10 {
						t.Errorf("%s --packets %d: fast-forward changed the output\n  on: %s\n off: %s", strings.Join(j.args, " "), j.packets, outs[0], outs[1])
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	var why []string
	for k, n := range leftOut {
		why = append(why, fmt.Sprintf("%d: %s", n, k))
	}
	sort.Strings(why)
	t.Logf("of %d configurations, %d compared at 10^5 packets and %d (of every %dth) at 10^6; left out, the fast-forward off from the first point: %s",
		len(cases), compared[100_000], compared[1_000_000], stride, strings.Join(why, "; "))
}

// ffLongSample: TestFastForward_GoldenCorpus compares these configurations
// of the corpus at 10^6 packets (about an eighth: sampleOf, reaching every
// scenario, driver and era).
func ffLongSample(cases [][]string) ([]int, int) { return sampleOf(8, cases) }

// ffOffFromTheStart says why the fast-forward of a configuration's run of n
// packets is off from the run's first point ("" if it is not): the Lab
// run to operation 64, where the fast-forward first looks (a batch run's
// light check), reports it off (FFStats.Off) without a skip. It stopped
// there before any walk of the state (its first search is later), and from
// then on every point returns at once: the run steps the same operations
// as with fast_forward=0, to the byte.
func ffOffFromTheStart(args []string, n int64) (string, error) {
	cfg, err := goldenConfig(args)
	if err != nil {
		return "", err
	}
	cfg.Packets, cfg.Seed = n, 1 // ppsim run's default seed
	l, err := lab.New(cfg)
	if err != nil {
		return "", fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	l.RunFor(64)
	if st := l.FFStats(); st.Off != "" && st.Skips == 0 && l.Ops() == 64 {
		return st.Off, nil
	}
	return "", nil
}
