package state

import (
	"fmt"
	"reflect"
	"strings"
)

// Tag is a field's pp tag, parsed (the vocabulary is the package doc's).
type Tag struct {
	Counter, Time, PFN, Frame, Index bool
	Skip                             bool   // observer, scratch or inert: not walked
	Upto                             string // upto=F: the count field's name
}

// TagOf parses f's pp tag (f is a field of struct type t). An unknown word
// panics naming the field: the vocabulary is the walk's contract, and a
// misspelt policy must not silently read as shape.
func TagOf(t reflect.Type, f reflect.StructField) Tag {
	var tg Tag
	v, ok := f.Tag.Lookup("pp")
	if !ok || v == "" {
		return tg
	}
	for _, w := range strings.Split(v, ",") {
		switch {
		case w == "counter":
			tg.Counter = true
		case w == "time":
			tg.Counter, tg.Time = true, true
		case w == "pfn":
			tg.PFN = true
		case w == "frame":
			tg.Frame = true
		case w == "index":
			tg.Index = true
		case w == "observer", w == "scratch", w == "inert":
			tg.Skip = true
		case strings.HasPrefix(w, "upto="):
			tg.Upto = strings.TrimPrefix(w, "upto=")
		default:
			panic(fmt.Sprintf("state: %s.%s: unknown pp tag word %q (the vocabulary is package state's doc)", t, f.Name, w))
		}
	}
	return tg
}
