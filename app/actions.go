// Package app is pplab's playground UI: go-app components that render the
// values a session.Session returns. Playground is the one stateful
// component: it holds the Session, turns the page's events into its
// actions on the UI goroutine, and renders its View through components
// that are pure functions of their exported fields (props). No engine
// logic and no playground logic lives here: the rules are the engine's
// (engine/lab), the behaviour the Session's (app/session, tested natively).
package app

// Actions the components raise (ga.Context.NewActionWithValue) and the
// Playground handles.
const (
	actSet     = "pp-set"     // value setField: a config field changed
	actStep    = "pp-step"    // one operation forward
	actBack    = "pp-back"    // one operation back
	actPacket  = "pp-packet"  // forward to the end of the next packet
	actPlay    = "pp-play"    // play/pause
	actSpeed   = "pp-speed"   // value int: index into session.Speeds
	actReset   = "pp-reset"   // back to operation 0
	actSeek    = "pp-seek"    // value uint64: an operation
	actSelect  = "pp-select"  // value int32: a PFN (-1: none)
	actJump    = "pp-jump"    // value jump: a violation's step and page
	actCompare = "pp-compare" // value string: the comparison run ("", "era:5.12", …)
	actCopy    = "pp-copy"    // copy the page's link
	actDismiss = "pp-dismiss" // value int: a banner entry
	actTrace   = "pp-trace"   // value bool: the trace panel opened (true) or closed
	actFold    = "pp-fold"    // value foldState: one of the controls' folds opened or closed
	actToEnd   = "pp-to-end"  // play to the run's end at max speed
	actGoTo    = "pp-goto"    // value goTo: an operation or a packet to go to
)

// foldState is one of the controls' folds (session.FoldKnobs, …) opened or
// closed.
type foldState struct {
	Name string
	Open bool
}

// setField is a change of one config field: "scenario", "driver", "era",
// "seed", "preset", a knob's name, or "break" (Value "rule" toggles it).
type setField struct {
	Field, Value string
}

// jump is a violation to show: the operation from which the log lists it,
// and its page.
type jump struct {
	Op  uint64
	PFN int32
}

// goTo is the timeline's "go to" form: a unit ("op" or "packet") and the
// number typed.
type goTo struct {
	Unit, Value string
}
