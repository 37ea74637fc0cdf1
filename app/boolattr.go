package app

import ga "github.com/maxence-charriere/go-app/v10/pkg/app"

// A boolean attribute is true by being there: go-app writes Selected(false)
// as selected="false" into a prerendered page, where the HTML parser reads
// it as selected (a select showed its last option, a closed <details> was
// open, a hidden element shown, until the app was up). These set the
// attribute only when true; in the running app go-app removes an attribute
// a render no longer sets, which clears selected, open, hidden and
// disabled alike. (A checkbox's checked stays Checked(v): removing the
// attribute leaves a box the user ticked ticked; no prerendered page has a
// checkbox, which TestGenerate_NoFalseBooleanAttributes checks.)

func optionSelected(o ga.HTMLOption, v bool) ga.HTMLOption {
	if v {
		return o.Selected(true)
	}
	return o
}

func detailsOpen(d ga.HTMLDetails, v bool) ga.HTMLDetails {
	if v {
		return d.Open(true)
	}
	return d
}

func divHidden(d ga.HTMLDiv, v bool) ga.HTMLDiv {
	if v {
		return d.Hidden(true)
	}
	return d
}

func pHidden(p ga.HTMLP, v bool) ga.HTMLP {
	if v {
		return p.Hidden(true)
	}
	return p
}

func buttonDisabled(b ga.HTMLButton, v bool) ga.HTMLButton {
	if v {
		return b.Disabled(true)
	}
	return b
}
