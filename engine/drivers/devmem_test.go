package drivers

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// BindRxQueue: every driver × era either binds or names one reason, in
// the kernel's order: no providers before 6.12, no queue management ops
// (-EOPNOTSUPP), no unreadable pool for the queue (-ENODATA), then the
// model's own limit.
func TestBindRxQueue_EachDriverBindsOrSaysWhy(t *testing.T) {
	tests := []struct {
		driver, era string
		ioUring     bool
		want        string // "" = binds
	}{
		{"lunar", "6.10", false, "memory providers are v6.12: 8ab79ed50cf1"},
		{"lunar", "6.12", false, ""},
		{"lunar", "6.12", true, "io_uring zero-copy RX is v6.15"},
		{"lunar", "6.15", true, ""},
		{"lunar", "7.1", false, ""},
		{"mvpp2", "6.12", false, "netdev_rx_queue_restart: -EOPNOTSUPP: mvpp2 has no queue management ops"},
		{"mvneta", "6.18", false, "-EOPNOTSUPP: mvneta has no queue management ops"},
		{"cpsw", "6.15", false, "-EOPNOTSUPP: cpsw has no queue management ops"},
		{"hns3", "6.16", false, "-EOPNOTSUPP: hns3 has no queue management ops"},
		{"mvpp2", "6.15", false, "__net_mp_open_rxq: -EOPNOTSUPP: mvpp2 has no queue management ops"},
		{"mlx5", "6.12", false, "netdev_rx_queue_restart: -EOPNOTSUPP: mlx5 has no queue management ops"},
		{"mlx5", "6.16", false, "__net_mp_open_rxq: -EOPNOTSUPP: mlx5 has no queue management ops"},
		{"mlx5", "6.18", false, "devmem needs mlx5's SHAMPO RQ"},
		{"bnxt", "6.15", false, "-ENODATA: bnxt creates no page_pool"},
		{"bnxt", "6.16", false, "the model's bnxt does not implement its 6.16 devmem RX path"},
	}
	for _, tc := range tests {
		t.Run(tc.driver+"-"+tc.era, func(t *testing.T) {
			spec, _ := SpecByName(tc.driver)
			e, _ := sim.EraByName(tc.era)
			err := spec.BindRxQueue(e, tc.ioUring)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// The drivers that run devmem-rx bind in every era with providers.
func TestSpecs_DevmemRxRunnersBind(t *testing.T) {
	for _, spec := range Specs {
		if !spec.Runs("devmem-rx") {
			continue
		}
		for i := range sim.Eras {
			if e := &sim.Eras[i]; e.MemProvider != sim.MPNone {
				if err := spec.BindRxQueue(e, false); err != nil {
					t.Errorf("%s lists devmem-rx but refuses it in %s: %v", spec.Name, e.Name, err)
				}
			}
		}
	}
}
