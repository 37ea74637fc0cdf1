package app

import (
	"strconv"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// Banner shows what went wrong or was changed: recovered panics (with the
// state that caused them), URL parameters that fell back to defaults, a
// comparison that does not run.
type Banner struct {
	ga.Compo
	Items []session.Notice
}

func (c *Banner) Render() (ui ga.UI) {
	defer guardRender(&ui, "Banner")
	if len(c.Items) == 0 {
		return ga.Div().ID("banner").Class("banner empty")
	}
	var items []ga.UI
	for i, it := range c.Items {
		items = append(items, ga.Li().Class(it.Kind).Body(
			bannerText(it.Text),
			ga.Button().Class("link").DataSet("index", strconv.Itoa(i)).Aria("label", "dismiss").Text("×").OnClick(onDismiss),
		))
	}
	return ga.Div().ID("banner").Class("banner").Role("alert").Body(ga.Ul().Class("plain").Body(items...))
}

// bannerLongList: a notice longer than this shows its list of accepted
// values folded (a phone's screen was filled by one unknown parameter's).
const bannerLongList = 160

// bannerText is a notice's text; a long one's list of accepted values
// ("(accepted: …)", "(this page's keys: …)") folded in a <details>.
func bannerText(text string) ga.UI {
	i := -1
	for _, m := range []string{" (accepted: ", " (this page's keys: "} {
		if j := strings.Index(text, m); j >= 0 && (i < 0 || j < i) {
			i = j
		}
	}
	j := strings.LastIndex(text, ")")
	if len(text) <= bannerLongList || i < 0 || j < i {
		return ga.Span().Text(text)
	}
	head, list, tail := text[:i], text[i+1:j+1], text[j+1:]
	return ga.Span().Body(
		ga.Text(head+tail),
		ga.Details().Class("banner-list").Body(ga.Summary().Text("the accepted values"), ga.Span().Text(list)))
}
