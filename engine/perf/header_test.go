package perf

import (
	"os"
	"strings"
	"testing"
)

// TestKernelEra: a header's release runs as the newest mainline era at or
// before it; words with no release, or a release before the first era,
// are refused.
func TestKernelEra(t *testing.T) {
	for _, tc := range []struct {
		kernel, era, note, err string
	}{
		{"6.6.30", "6.6", "", ""},
		{"v6.8", "6.8", "", ""},
		{"6.8.0-45-generic", "6.8", "", ""},
		{"Linux 6.1.0-18-arm64", "6.1", "", ""},
		{"6.7", "6.6", "runs as era 6.6", ""},
		{"6.11.2", "6.10", "runs as era 6.10", ""},
		{"7.2-rc3", "7.1", "runs as era 7.1", ""}, // 7.1-rc1 is a pre-release: never the era of a release
		{"9.0", "7.3", "after the model's newest era", ""},
		{"5.10.223", "", "", "before the model's first era"},
		{"banana", "", "", "no release in it"},
	} {
		e, note, err := kernelEra(tc.kernel)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.kernel, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.kernel, err)
		case e.Name != tc.era || !strings.Contains(note, tc.note) || (tc.note == "") != (note == ""):
			t.Errorf("%q: era %s note %q, want %s note with %q", tc.kernel, e.Name, note, tc.era, tc.note)
		}
	}
}

// TestProfile_FrameFromTheTest: the test line's frame size.
func TestProfile_FrameFromTheTest(t *testing.T) {
	for test, want := range map[string]int{
		"forward 64B": 64, "forward 64 B frames": 64, "64-byte UDP": 64, "pktgen 1500 bytes": 1500,
		"one TCP stream, 100G": 0, "TCP": 0, "8B": 0, "drop 1.5B": 0,
	} {
		if got := (&Profile{Test: test}).Frame(); got != want {
			t.Errorf("%q: frame %d, want %d", test, got, want)
		}
	}
}

// TestPredict_APacketRateIsCheckedAtTheListingsFrames: 420 kpps of 64-byte
// forwarding on the espressobin's 1G link was refused as more than the
// link carries with the forward workload's 1512-byte frames (81.4 kpps).
// With the header's 64B it is taken; without it, taken at the smallest
// frame with a note; above the 64-byte line rate it is refused.
func TestPredict_APacketRateIsCheckedAtTheListingsFrames(t *testing.T) {
	with := readListing(t, "listings/mvneta-6.6-forward-64B.txt")
	bare := readListing(t, "listings/mvneta-6.6-forward-64B-bare.txt")
	if _, err := Predict(PredictInput{Profile: with, Rate: 420, Unit: "kpps", Change: "pp-napi"}); err != nil {
		t.Errorf("with the header's 64B: %v", err)
	}
	pr, err := Predict(PredictInput{Profile: bare, Rate: 420, Unit: "kpps", Change: "pp-napi"})
	if err != nil {
		t.Fatalf("without a header: %v", err)
	}
	if !hasNote(pr, "frames of at most 273 bytes") || pr.LinkBound {
		t.Errorf("without a header: notes %q, link bound %v", pr.Notes, pr.LinkBound)
	}
	for _, p := range []*Profile{with, bare} {
		_, err := Predict(PredictInput{Profile: p, Rate: 1600, Unit: "kpps", Change: "pp-napi"})
		if err == nil || !strings.Contains(err.Error(), "64-byte frames") {
			t.Errorf("1600 kpps over a 1G link: %v, want refused at 64-byte frames", err)
		}
	}
}

// TestPredict_TheHeadersKernel: "# kernel:" narrows the names' range to
// its era; a kernel the names contradict is named in a note and the names
// decide; an era move starts from the header's kernel.
func TestPredict_TheHeadersKernel(t *testing.T) {
	b, err := os.ReadFile("testdata/mvpp2-6.6-drop-noheader.txt")
	if err != nil {
		t.Fatal(err)
	}
	read := func(header string) *Profile {
		p, err := ParseProfile(header + "\n" + string(b))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	bare, err := Predict(PredictInput{Profile: read(""), Rate: 900, Unit: "kpps", Change: "pp-napi"})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Predict(PredictInput{Profile: read("# kernel: 6.6.30"), Rate: 900, Unit: "kpps", Change: "pp-napi"})
	if err != nil || pr.EraBefore != "6.6" {
		t.Fatalf("kernel 6.6.30: %v, era %s, want 6.6", err, pr.EraBefore)
	}
	pr, err = Predict(PredictInput{Profile: read("# kernel: 5.14.0-427.el9"), Rate: 900, Unit: "kpps", Change: "pp-napi"})
	if err != nil || pr.EraBefore != bare.EraBefore || !hasNote(pr, "backported") {
		t.Fatalf("kernel 5.14 under 6.6 names: %v, era %s (bare: %s), notes %q", err, pr.EraBefore, bare.EraBefore, pr.Notes)
	}
	if _, err := Predict(PredictInput{Profile: read("# kernel: 4.19"), Rate: 900, Unit: "kpps", Change: "pp-napi"}); err == nil || !strings.Contains(err.Error(), "kernel \"4.19\"") {
		t.Errorf("kernel 4.19: %v, want a refusal naming the header's kernel", err)
	}
	pr, err = Predict(PredictInput{Profile: read("# kernel: 6.6"), Rate: 900, Unit: "kpps", Change: "era:6.12"})
	if err != nil || pr.EraBefore != "6.6" || pr.EraAfter != "6.12" {
		t.Errorf("era:6.12 from kernel 6.6: %v, %s → %s", err, pr.EraBefore, pr.EraAfter)
	}
}

// TestPredict_AnEraMoveAcrossTheDriversRework: mlx5 6.1 → 6.4 removes the
// driver's RX page cache (mlx5e_page_release_dynamic is gone in 6.4): the
// listed function is at 0 after the move, with a note; the copy to user
// space the listing shows as _copy_to_iter (rep movsb inline, FSRM) is the
// model's copy, not also an unlisted copy_user_enhanced_fast_string beside
// it; the slowdown note does not say the move removes work.
func TestPredict_AnEraMoveAcrossTheDriversRework(t *testing.T) {
	p := readListing(t, "listings/mlx5-6.1-tcp.txt")
	pr, err := Predict(PredictInput{Profile: p, Rate: 38000, Unit: "mbps", Change: "era:6.4"})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(pr, "mlx5e_page_release_dynamic: the driver's own code that era 6.4 no longer has") {
		t.Errorf("no note of the gone function: %q", pr.Notes)
	}
	for _, e := range pr.ProfileAfter {
		switch e.Symbol {
		case "mlx5e_page_release_dynamic", "copy_user_enhanced_fast_string", "rep_movs_alternative":
			t.Errorf("after the move: %s %.2f%%", e.Symbol, e.Pct)
		}
	}
	if hasNote(pr, "the change removes work") {
		t.Errorf("a move of era noted as removing work: %q", pr.Notes)
	}
}

// TestPredict_TheTrialsHeaders: what a second new user's trial found in
// the header's handling. Each row: a header over a corpus listing, the
// change, and what the answer must say (or the era it must run).
func TestPredict_TheTrialsHeaders(t *testing.T) {
	read := func(name, header string) *Profile {
		b, err := os.ReadFile("testdata/listings/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseProfile(header + "\n" + string(b))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, file, header string
		rate               float64
		unit, change       string
		wantWL, wantEra    string // "" skips
		wantNote, wantErr  string
	}{
		// "# test: bogus" made a TCP listing a drop test, silently
		{"an unknown test", "mlx5-6.8-tcp.txt", "# test: bogus", 41200, "mbps", "era:6.12", "tcp-stream", "", "names no workload the model runs", ""},
		// a forwarding header over a TCP receiver's listing invented ip_forward
		{"a test the functions contradict", "mlx5-6.8-tcp.txt", "# test: NAT forwarding", 41200, "mbps", "era:6.12", "tcp-stream", "", "but the listing shows tcp-stream", ""},
		// a TCP receiver's ACKs (__dev_queue_xmit) are no forwarding
		{"a TCP receiver's transmit path", "mlx5-rhel9-5.14-backported-tcp.txt", "", 41200, "mbps", "era:6.12", "tcp-stream", "", "", ""},
		// "bulk refill: off" on 5.14-5.15 names ran rfc-v1 → rfc-v1
		{"bulk off in a kernel that always bulk-refills", "mvpp2-5.15-drop.txt", "# bulk refill: off", 900, "kpps", "bulk", "", "5.15", "bulk_refill=0", ""},
		{"bulk off where the names say bulk", "mlx5-6.8-tcp.txt", "# bulk refill: off", 41200, "mbps", "bulk", "", "", "bulk_refill=0", ""},
		// a 9000-byte frame's Mbit/s: 99 Gbit/s fit a 100G link
		{"jumbo frames' throughput", "mlx5-6.8-tcp.txt", "# test: tcp 9000B", 90000, "mbps", "era:6.12", "", "", "", ""},
		{"beyond the link with jumbo frames", "mlx5-6.8-tcp.txt", "# test: tcp 9000B", 120000, "mbps", "era:6.12", "", "", "", "9000-byte frames (99002.7 mbps)"},
		// 732 kpps typed for the header's 732 Mbit/s
		{"a unit slip", "cpsw-6.1-tcp.txt", "# rate: 740 mbps", 740, "kpps", "bulk", "", "", "", "did you mean mbps?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := read(tc.file, tc.header)
			pr, err := Predict(PredictInput{Profile: p, Rate: tc.rate, Unit: tc.unit, Change: tc.change})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantWL != "" && pr.Workload != tc.wantWL {
				t.Errorf("workload %s, want %s", pr.Workload, tc.wantWL)
			}
			if tc.wantEra != "" && pr.EraBefore != tc.wantEra {
				t.Errorf("era %s, want %s", pr.EraBefore, tc.wantEra)
			}
			if tc.wantNote != "" && !hasNote(pr, tc.wantNote) {
				t.Errorf("no note with %q: %q", tc.wantNote, pr.Notes)
			}
		})
	}
	// The second trial: a throughput with no frame in the header was capped
	// at the smallest frames' line rate (38500 → 1111 Mbit/s); a drop
	// listing in Mbit/s ran as TCP; a move of era made unlisted functions
	// far dearer than the listing's cut-off allows.
	tcp := readListing(t, "listings/mlx5-6.1-tcp.txt")
	pr, err := Predict(PredictInput{Profile: tcp, Rate: 38000, Unit: "mbps", Change: "era:6.4"})
	if err != nil || pr.LinkBound || pr.Predicted.Value < 30000 {
		t.Errorf("mlx5 6.1 TCP at 38000 Mbit/s, moved to 6.4: %v, %+v, link bound %v", err, pr.Predicted, pr.LinkBound)
	} else {
		if !hasNote(pr, "cost more than the listing's smallest share") {
			t.Errorf("no cut-off note: %q", pr.Notes)
		}
		for _, e := range pr.ProfileAfter {
			if e.Symbol == "eth_type_trans" && e.Pct > 1 {
				t.Errorf("eth_type_trans at %.2f%% after the move, unlisted below a %.2f%% cut-off", e.Pct, 0.31)
			}
		}
	}
	// a move of era keeps the listing's names and says what the later
	// kernel calls them
	if pr, err := Predict(PredictInput{Profile: tcp, Rate: 38000, Unit: "mbps", Change: "era:7.3"}); err != nil ||
		!hasNote(pr, "in era 7.3 page_pool_put_defragged_page is page_pool_put_unrefed_netmem") {
		t.Errorf("mlx5 6.1 moved to 7.3: %v, no note translating the names", err)
	}
	drop := read("mvpp2-5.15-drop.txt", "")
	if pr, err := Predict(PredictInput{Profile: drop, Rate: 1000, Unit: "mbps", Change: "era:6.6"}); err != nil || pr.Workload != "drop" {
		t.Errorf("a drop listing in Mbit/s: %v, workload %v", err, pr)
	}
	for _, tc := range []struct {
		v        float64
		unit     string
		want     float64
		wantUnit string
	}{{12, "Mpps", 12000, "kpps"}, {40, "Gbps", 40000, "mbps"}, {900, "KPPS", 900, "kpps"}, {10, "Mbit/s", 10, "mbps"}} {
		if v, u, err := NormalizeRate(tc.v, tc.unit); err != nil || v != tc.want || u != tc.wantUnit {
			t.Errorf("%g %s: %g %s %v", tc.v, tc.unit, v, u, err)
		}
	}
	if _, _, err := NormalizeRate(1, "furlongs"); err == nil {
		t.Error("furlongs accepted")
	}
}
