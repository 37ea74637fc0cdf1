package app

import ga "github.com/maxence-charriere/go-app/v10/pkg/app"

// MachineKey is the machine drawing's key: the tile colours and what the
// marks mean. Its one prop never changes, so go-app renders it once and
// skips it on every step.
type MachineKey struct {
	ga.Compo
	Prefix string // the machine's id prefix (Machine.ID), for the ids inside
}

func (k *MachineKey) Render() (ui ga.UI) {
	defer guardRender(&ui, "MachineKey")
	var legend []ga.UI
	for _, l := range placeLegend {
		legend = append(legend, ga.Li().Body(ga.Span().Class("swatch place-"+l.Place).Aria("hidden", "true"), ga.Text(l.Text)))
	}
	legend = append(legend, ga.Li().Body(ga.Span().Class("swatch changed-swatch").Aria("hidden", "true"), ga.Text("moved in the last step")))
	return ga.Div().Class("machine-key").Body(
		ga.Ul().Class("legend").Aria("label", "tile colours").Body(legend...),
		glossary(k.Prefix),
	)
}
