package lab

import "testing"

func TestSmoke(t *testing.T) {
	for _, sc := range []string{"pool-direct", "pool-ring", "pool-slow"} {
		l, err := New(Config{Scenario: sc, Packets: 100000, Set: []string{"check_every=1000"}})
		if err != nil {
			t.Fatal(err)
		}
		l.Run()
		r := l.Results()
		t.Logf("%s: %.1f kpps %.2f ns/pkt stats=%v inflight=%d viol=%d prof=%v", sc, r.Rate.Value, r.NsPerPacket, r.Stats, r.Inflight, r.Violations.Total(), r.Profile)
		for _, v := range r.Violations.List {
			t.Log(v)
		}
	}
}
