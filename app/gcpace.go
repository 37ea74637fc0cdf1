package app

import (
	"runtime"
	"runtime/metrics"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Garbage collection off the key → DOM path.
//
// Go's wasm runtime has one thread, and it returns from a JavaScript
// callback only when every goroutine is idle, the collector's included: a
// collection that a step's allocations start runs whole inside that step's
// key event, after the page's update and before the browser can paint it
// (20–60 ms at the playground's ~6 MB live heap, measured; a step
// allocates ~0.3 MB at teaching sizes, so one step in ~18 met one). A
// larger GOGC made each collection slower (45–88 ms) without making it
// rare enough.
//
// So after each step the playground looks at the heap, and once a step
// has used gcEarly of the headroom to the collector's goal, it collects
// itself after the next paint (a requestAnimationFrame callback that sets
// a 0 ms timeout runs after that frame is drawn): the step is on screen
// first, and the collection runs in the gap before the next key. A key
// pressed during it waits for it, as it would have inside the step; at a
// person's pace the gap is long enough. When the user pauses, the idle
// catch-up collects too (Playground.step).
const gcEarly = 0.4

var (
	gcSamples = []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	gcQueued   bool
	gcAfterRAF ga.Func // requestAnimationFrame → setTimeout(gcNow, 0)
	gcNow      ga.Func
)

// collectAfterPaintIfDue queues a collection after the next paint when the
// heap has used gcEarly of its headroom (once; natively it does nothing).
func collectAfterPaintIfDue() {
	if !ga.IsClient || gcQueued {
		return
	}
	metrics.Read(gcSamples)
	live, goal, objects := gcSamples[0].Value.Uint64(), gcSamples[1].Value.Uint64(), gcSamples[2].Value.Uint64()
	if goal <= live || float64(objects) < float64(live)+gcEarly*float64(goal-live) {
		return
	}
	if gcNow == nil {
		gcNow = ga.FuncOf(func(ga.Value, []ga.Value) any {
			gcQueued = false
			runtime.GC()
			return nil
		})
		gcAfterRAF = ga.FuncOf(func(ga.Value, []ga.Value) any {
			ga.Window().Call("setTimeout", gcNow, 0)
			return nil
		})
	}
	gcQueued = true
	ga.Window().Call("requestAnimationFrame", gcAfterRAF)
}

// heapState is the collections so far and the live heap after the last one
// (a step that costs several times the usual one is often a collection).
func heapState() (cycles uint64, liveMB float64) {
	metrics.Read(gcSamples)
	return gcSamples[3].Value.Uint64(), float64(gcSamples[0].Value.Uint64()) / (1 << 20)
}

// exposeHeapState sets window.__pplabHeap(), which returns {gcCycles,
// heapMB} (heapState) when asked: window.__pplab is written at every
// step, and its heap figures were a metrics read each time.
func exposeHeapState() {
	if heapFn != nil {
		return
	}
	heapFn = ga.FuncOf(func(ga.Value, []ga.Value) any {
		cycles, mb := heapState()
		return map[string]any{"gcCycles": float64(cycles), "heapMB": mb}
	})
	ga.Window().Set("__pplabHeap", heapFn)
}

var heapFn ga.Func
