//go:build e2e

package e2e

import (
	"testing"
	"time"
)

func TestZZShots(t *testing.T) {
	for _, c := range []struct{ name, q string; w, h int }{
		{"gxdp-69", "v=1&scenario=generic-xdp&era=6.9&preset=teaching&step=40", 1280, 800},
		{"devmem-612", "v=1&scenario=devmem-rx&era=6.12&preset=teaching&step=60", 1280, 800},
		{"devmem-615-iou", "v=1&scenario=devmem-rx&era=6.15&provider=1&preset=teaching&step=60", 1280, 800},
		{"destroy-615", "v=1&scenario=destroy&era=6.15&preset=teaching&step=400", 1280, 800},
		{"netpp-71rc1", "v=1&scenario=drop&era=7.1-rc1&preset=teaching&step=30", 1280, 800},
		{"devmem-phone", "v=1&scenario=devmem-rx&era=6.18&preset=teaching&step=60", 390, 844},
	} {
		p := newPage(t, c.w, c.h)
		p.open(rootURL + "?" + c.q)
		time.Sleep(500 * time.Millisecond)
		p.shot(c.name)
		t.Logf("%s: %v errors %q narration %q", c.name, p.state()["op"], p.errors(), p.text("#narration-text"))
	}
}
