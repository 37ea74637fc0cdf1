package session

import (
	"sync"

	"pplab/engine/observe"
	"pplab/engine/sim"
)

// CheckView is "check it on your kernel": the commands that observe a
// rule or the counters on a live kernel of the run's era
// (engine/observe), for the rules panel and the statistics panel.
type CheckView struct {
	Target, Era, Tag, Note string
	Commands               []CheckCommand
}

// CheckCommand is one command of a CheckView.
type CheckCommand struct {
	Kind, Text, Run, Shows, Validated string
}

// checkCache: a plan depends only on its target and era.
var checkCache sync.Map

func checkView(key string, era string, plan func(e *sim.Era) observe.Plan) CheckView {
	if v, ok := checkCache.Load(key + "|" + era); ok {
		return v.(CheckView)
	}
	e, err := sim.EraByName(era)
	if err != nil {
		return CheckView{}
	}
	p := plan(e)
	v := CheckView{Target: p.Target, Era: e.Name, Tag: e.Tag, Note: p.Note}
	for _, c := range p.Commands {
		v.Commands = append(v.Commands, CheckCommand{Kind: string(c.Kind), Text: c.Text, Run: c.Run, Shows: c.Shows, Validated: c.Validated})
	}
	checkCache.Store(key+"|"+era, v)
	return v
}

// RuleCheck is the check of rule in era ("" for an unknown rule or era).
func RuleCheck(rule, era string) CheckView {
	r, err := sim.RuleByName(rule)
	if err != nil {
		return CheckView{}
	}
	return checkView("rule:"+rule, era, func(e *sim.Era) observe.Plan { return observe.PlanFor(observe.Rule(r), e) })
}

// CountersCheck is the check of the page_pool counters in era.
func CountersCheck(era string) CheckView {
	return checkView("counters", era, observe.CountersPlan)
}
