package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures are the bad (and one good) profile files of the bad-input table:
// what users paste from chat or point --profile at by mistake.
var fixtures = map[string]string{
	"bom.txt":      "\ufeff# driver: mvpp2  platform: macchiatobin  test: drop-64B\n# rate: 962 kpps  recycling: off\n  10.00%  [kernel]  [k] page_pool_alloc_pages\n  5.00%  [kernel]  [k] kmem_cache_free\n",
	"over100.txt":  "  60.00%  [kernel]  [k] page_pool_put_page\n  50.00%  [kernel]  [k] kfree_skb\n",
	"garbage.txt":  "hello world\n",
	"empty.txt":    "",
	"zero.txt":     "  0.00%  [kernel]  [k] kfree_skb\n",
	"idle.txt":     "# driver: mvpp2  platform: macchiatobin  test: drop-64B\n  90.00%  [kernel]  [k] cpu_do_idle\n",
	"badplat.txt":  "# driver: mvpp2  platform: vax11  test: drop-64B\n  10.00%  [kernel]  [k] kfree_skb\n",
	"baddrv.txt":   "# driver: e1000  test: drop-64B\n  10.00%  [kernel]  [k] kfree_skb\n",
	"badpct.txt":   "  abc%  [kernel]  [k] kfree_skb\n",
	"badsym.txt":   "  10.00%  [kernel]  [k] kfree_skb extra words\n",
	"badrate.txt":  "# rate: lots kpps\n  10.00%  [k] kfree_skb\n",
	"nul.txt":      "ok\x00x",
	"badutf8.txt":  "  10.00%  [k] kfree_skb\n\xff\xfe\n",
	"negative.txt": "  -5.00%  [k] kfree_skb\n",
	// ppsim diagnose's pastes.
	"ppneg.txt":      "NIC statistics:\n     rx_pp_alloc_fast: -3\n",
	"ppragged.txt":   "rx_pp_alloc_fast\t10\t20\nrx_pp_alloc_slow\t1\n",
	"ppunclosed.txt": "[{'id': 1,\n  'inflight': 3\n",
	"ppok.txt":       "rx_pp_alloc_fast: 100\nrx_pp_recycle_ring: 100\n",
}

// fixtureDir writes the fixtures (and a directory and a 2 MB file) and
// returns where.
func fixtureDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range fixtures {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("  1.00%  [k] kfree_skb\n", 100_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
