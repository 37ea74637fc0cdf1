package drivers

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// xdp_return_frame and xdp_return_frame_bulk pass no allow_direct; before
// 6.10 their pages go to the ptr_ring, and from 6.10 page_pool_napi_local
// may send them into the alloc cache (4a96a4e807c3, 39806b96c89a): the
// narration says so per era.
func TestXDPReturnNarration_NapiLocalDecidesFrom610(t *testing.T) {
	for _, tc := range []struct {
		era         string
		frame, bulk string // what the narration must say
		notFrame    string // and must not
	}{
		{"6.9", "so the page goes to the ptr_ring", "page_pool_put_page_bulk", "page_pool_napi_local"},
		{"6.10", "page_pool_napi_local", "page_pool_napi_local once for the batch", "so the page goes to the ptr_ring"},
		{"7.1", "page_pool_napi_local", "page_pool_napi_local once for the batch", "so the page goes to the ptr_ring"},
	} {
		t.Run(tc.era, func(t *testing.T) {
			e, err := sim.EraByName(tc.era)
			if err != nil {
				t.Fatal(err)
			}
			if f := xdpReturnFrameWhy(e); !strings.Contains(f, tc.frame) || strings.Contains(f, tc.notFrame) {
				t.Errorf("xdp_return_frame: %q; want %q, not %q", f, tc.frame, tc.notFrame)
			}
			if b := xdpFlushWhy(e); !strings.Contains(b, tc.bulk) {
				t.Errorf("xdp_flush_frame_bulk: %q; want %q", b, tc.bulk)
			}
		})
	}
}
