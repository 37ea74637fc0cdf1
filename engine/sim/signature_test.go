package sim

import "testing"

func TestSignatureCheck_PerEra(t *testing.T) {
	masked := "(page->pp_magic & ~0x3UL) == PP_SIGNATURE"
	magicMask := "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE"
	want := map[string]string{
		"5.12": "", "5.13": "",
		"rfc-v1": "page->signature == PP_SIGNATURE",
		"5.14":   masked, "5.15": masked, "6.1": masked, "6.4": masked, "6.6": masked, "6.8": masked,
		"6.9": masked, "6.10": masked, "6.12": masked, "6.13": masked, "6.15": masked,
		"6.16": magicMask, "6.18": magicMask, "6.19": magicMask,
		"7.1-rc1": "PageNetpp(page)",
		"7.1":     magicMask,
		"7.3":     magicMask, // include/linux/mm.h and net/core/netmem_priv.h in 7.3.4: no PGTY_netpp
	}
	for i := range Eras {
		e := &Eras[i]
		w, ok := want[e.Name]
		if !ok {
			t.Errorf("era %s: no expected signature check in this test", e.Name)
			continue
		}
		if got := e.SignatureCheck(); got != w {
			t.Errorf("era %s: SignatureCheck() = %q, want %q", e.Name, got, w)
		}
	}
}
