package tour

// FigPath is the path (without a site prefix) of preset p's static figure:
// the picture a printed chapter shows after the paragraph that links p,
// drawn from the engine's run when the site is built (app/tourprint; the
// site generator writes one per preset).
func (c Chapter) FigPath(p Preset) string { return "/tour/fig/" + c.Slug + "-" + p.ID + ".svg" }
