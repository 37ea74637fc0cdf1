package observe

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pplab/engine/sim"
)

// TestBpftrace_618 runs the 6.18 era's scripts under the machine's
// bpftrace (Debian's 0.17: `make bpftrace` installs it) against its
// running kernel, when that kernel is a 6.18 and the test runs as root.
// A tracepoint-only script gets `interval:s:1 { exit(); }` added and must
// attach and exit 0. A script with kfunc/kretfunc probes must get past
// bpftrace's parser — its only errors may be that fentry is unavailable
// (the test kernel has no readable available_filter_functions and
// bpftrace --info says kfunc: no) — and every function it probes must be
// a text symbol of /proc/kallsyms (so not inlined into its callers).
func TestBpftrace_618(t *testing.T) {
	bt, err := exec.LookPath("bpftrace")
	if err != nil {
		t.Skip("bpftrace is not installed (make bpftrace installs Debian's): the 6.18 scripts are not run")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: bpftrace cannot attach, the 6.18 scripts are not run")
	}
	if rel := runningRelease(); !strings.HasPrefix(rel, "6.18") {
		t.Skipf("the running kernel is %s, not 6.18: the 6.18 scripts are not run", rel)
	}
	if testing.Short() {
		t.Skip("-short: the 6.18 scripts are not run under bpftrace")
	}
	// bpftrace reads tracepoints' formats from tracefs: a machine fresh
	// from boot may not have it mounted (live/capture.sh mounts it the
	// same way; the two ran side by side under go test ./...).
	if _, err := os.Stat("/sys/kernel/tracing/events"); err != nil {
		if out, err := exec.Command("mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing").CombinedOutput(); err != nil {
			t.Fatalf("tracefs is not mounted at /sys/kernel/tracing and mounting it failed: %v %s", err, out)
		}
	}
	e, err := sim.EraByName("6.18")
	if err != nil {
		t.Fatal(err)
	}
	text := kallsymsText(t)
	dir := t.TempDir()
	seen := map[string]bool{}
	attached, parsed := 0, 0
	for _, tg := range Targets() {
		for i, c := range For(tg, e) {
			if c.Kind != Bpftrace || seen[c.Text] {
				continue
			}
			seen[c.Text] = true
			kf := false
			for _, pr := range probes(t, c.Text) {
				if pr.kind == "kfunc" || pr.kind == "kretfunc" {
					kf = true
					if !text[pr.name] {
						if later := laterInKallsyms(pr.name, e, text); later != "" {
							// A 6.18.y stable kernel with a later rename
							// backported: the plan's note names it.
							t.Logf("%s: %s:%s is %s in this kernel (%s), a later era's name the plan's note gives", tg, pr.kind, pr.name, later, runningRelease())
							continue
						}
						t.Errorf("%s: %s:%s is not a text symbol of this 6.18 kernel's /proc/kallsyms (inlined or renamed)", tg, pr.kind, pr.name)
					}
				}
			}
			script := c.Text
			if !kf {
				script += "interval:s:1\n{\n\texit();\n}\n"
			}
			f := filepath.Join(dir, tg.String()+"-"+string(rune('a'+i))+".bt")
			if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			out, err := exec.CommandContext(ctx, bt, f).CombinedOutput()
			cancel()
			errs := bpftraceErrors(string(out))
			if !kf {
				if err != nil || len(errs) > 0 {
					t.Errorf("%s: bpftrace did not attach and exit: %v\n%s", tg, err, out)
					continue
				}
				attached++
				continue
			}
			for _, l := range errs {
				if !strings.Contains(l, "kfunc") || strings.Contains(l, "syntax error") {
					t.Errorf("%s: bpftrace rejects the script: %s\n%s", tg, l, script)
				}
			}
			parsed++
		}
	}
	t.Logf("6.18 on %s: %d tracepoint scripts attached and exited; %d kfunc scripts parsed (fentry unavailable here) with their functions in kallsyms", runningRelease(), attached, parsed)
}

// bpftraceErrors are the ERROR lines of bpftrace's output, except its
// RLIMIT_MEMLOCK notice (a warning on a kernel that accounts BPF memory
// by cgroup).
func bpftraceErrors(out string) []string {
	var errs []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ERROR") && !strings.Contains(l, "RLIMIT_MEMLOCK") {
			errs = append(errs, l)
		}
	}
	return errs
}

func kallsymsText(t *testing.T) map[string]bool {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		x := strings.Fields(sc.Text())
		if len(x) >= 3 && (x[1] == "t" || x[1] == "T") {
			m[x[2]] = true
		}
	}
	return m
}

// laterInKallsyms is the later-era name (LaterNames) of the symbol era e
// names name that this kernel's kallsyms has, "" if none.
func laterInKallsyms(name string, e *sim.Era, text map[string]bool) string {
	for s := sim.Sym(0); s < sim.NumSyms; s++ {
		if s.NameIn(e) != name {
			continue
		}
		for _, n := range LaterNames(s, e) {
			if text[n] {
				return n
			}
		}
	}
	return ""
}
