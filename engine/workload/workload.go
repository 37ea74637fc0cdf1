// Package workload is the traffic and the application side of the driver
// scenarios, one file per workload: the frames a NIC receives, what the
// stack does with them (drop, TCP receive, forwarding, XDP redirect, …) and
// the readers on the application CPU. A workload drives a drivers.Driver
// through its exported paths; it never reaches into the driver's state.
package workload

import (
	"errors"
	"fmt"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// Env is what a workload runs on: the machine, one driver queue and the skb
// layer. The NAPI runs on Drv.CPU(); the application (socket reader, tap
// reader, veth peer) on App.
type Env struct {
	M   *sim.Machine
	A   *mm.Allocator
	Reg *pagepool.Registry
	S   *skb.Stack
	Drv *drivers.Driver
	App int

	// Frame is the size of the frames the workload receives: the frame knob,
	// or DefaultFrame. Set by NewWorkload.
	Frame int

	Lost int64 `pp:"counter"` // frames lost: no RX buffer posted, or no memory for an skb
	Err  error // a step that could not go on (the run stops)
}

// Workload advances one scenario by one operation.
type Workload interface {
	// Step runs one operation; it reports whether it completed a packet.
	Step(e *Env) bool
	// Next names the next operation (the UI's step narration).
	Next() string
}

// Ender is a workload that ends on its own (destroy): the packet count of a
// run does not end it, Finished does.
type Ender interface {
	Finished() bool
}

// Workload names (the driver scenarios of the same names run them).
const (
	WDrop          = "drop"
	WTCPStream     = "tcp-stream"
	WForward       = "forward"
	WXDPRedirect   = "xdp-redirect"
	WXDPDrop       = "xdp-drop"
	WXDPTx         = "xdp-tx"
	WSplitPage     = "split-page"
	WCloneTap      = "clone-tap"
	WCoalesceMixed = "coalesce-mixed"
	WDestroy       = "destroy"
	WNumaMigrate   = "numa-migrate"
	WPfmemalloc    = "pfmemalloc"
	WGenericXDP    = "generic-xdp"
)

// Frame sizes on the wire (without FCS): a 64-byte test frame, a full TCP
// segment (MSS 1448 + 20 bytes of IPv4 + 32 of TCP with timestamps + 14), a
// full iperf UDP datagram (1470 + 8 + 20 + 14).
const (
	FrameSmall  = 64
	FrameTCP    = 1514
	FrameUDP    = 1512
	FrameMedium = 1000 // split-page, clone-tap, destroy: a frame well inside half a page
	PayloadTCP  = 1448
	PayloadUDP  = 1470
	// Header bytes eth_get_headlen finds (what a header-splitting driver
	// copies) and the protocols pull: Ethernet; + IPv4 + UDP; + IPv4 + TCP
	// with timestamps.
	HdrEth = 14
	HdrUDP = 42
	HdrTCP = 66
)

// WarmPackets is the warm-up of a run on d: the steady state starts once
// every RX buffer has cycled twice (rate and profile count from then on).
func WarmPackets(d *drivers.Driver) int64 { return int64(2*d.RingSize() + drivers.Budget) }

// Horizon is a workload that changes what it does at a packet it knows in
// advance (numa-migrate's NAPI move): the lab's fast-forward never skips
// past it.
type Horizon interface {
	// ChangesIn is the packets left before the change (-1: none ahead).
	ChangesIn() int64
}

// Settler is a workload whose steady state needs more than the RX ring's
// warm-up: TCP receive, whose receive window a slower reader fills first.
type Settler interface {
	Settled() bool
	// SettleBound is the packets after which Settled is true at the latest.
	SettleBound() int64
}

// DefaultFrame is the frame size a workload receives unless the frame knob
// says otherwise (coalesce-mixed mixes its own sizes).
func DefaultFrame(workload string) int {
	switch workload {
	case WTCPStream, WGenericXDP, WDevmemRx:
		return FrameTCP
	case WForward:
		return FrameUDP
	case WDrop, WXDPRedirect, WXDPDrop, WXDPTx, WNumaMigrate, WPfmemalloc:
		return FrameSmall
	}
	return FrameMedium
}

// inSoftirq marks cpu as running in softirq (a NAPI poll, net_rx_action,
// a veth or TX-completion poll) and returns it; inProcess marks it as running
// in process context (a reader's recvmsg, a sender's sendmsg). The context
// decides what the pool allows (the lockless cache only in softirq; from
// 6.8 a softirq free on the NAPI's CPU recycles directly) and what a ring
// put costs (spin_lock vs spin_lock_bh).
func (e *Env) inSoftirq(cpu int) int { e.M.CPUs[cpu].Softirq = true; return cpu }
func (e *Env) inProcess(cpu int) int { e.M.CPUs[cpu].Softirq = false; return cpu }

// txCPU is the CPU whose NAPI runs TX completion: the tx_cpu knob, or the
// RX NAPI's CPU (0).
func (e *Env) txCPU() int {
	if c := int(e.M.Knobs[sim.KnobTxCPU]); c > 0 && c < len(e.M.CPUs) {
		return c
	}
	return e.Drv.CPU()
}

// settle sorts out a receive and reports whether it gave an skb: a nil skb
// or skb.ErrNoMem is a lost frame; any other error stops the run (e.Err keeps
// the first).
func (e *Env) settle(sk *skb.SKB, err error) bool {
	if err == nil { // the common case: no errors.Is walk per frame
		if sk == nil {
			e.Lost++
		}
		return sk != nil
	}
	if errors.Is(err, skb.ErrNoMem) {
		e.Lost++
		return false
	}
	if e.Err == nil {
		e.Err = err
	}
	return false
}

// tpaEnd runs the NAPI side of a TPA completion (hardware GRO): the poll
// bookkeeping of rx, then the driver's bnxt_tpa_end. nil when it failed
// (counted as lost) or nothing was aggregated.
func (e *Env) tpaEnd() *skb.SKB {
	d := e.Drv
	cpu := e.inSoftirq(d.CPU())
	if !d.Scheduled() {
		d.Schedule()
	}
	if d.Poll(FrameTCP) {
		e.S.SkbDeferFreeFlush(cpu)
	}
	e.M.Begin(cpu, sim.SymDrvRx)
	sk, err := d.TPAEnd()
	if err == nil && sk == nil {
		return nil
	}
	if !e.settle(sk, err) {
		return nil
	}
	return sk
}

// AttachesXDP reports whether the workload runs an XDP program on the
// driver with knobs k (bnxt runs its page mode there whatever hw_gro says):
// the XDP scenarios, and destroy whose pages are held as redirected XDP
// frames (held=1).
func AttachesXDP(name string, k *sim.Knobs) bool {
	return name == WXDPRedirect || name == WXDPDrop || name == WXDPTx || (name == WDestroy && k[sim.KnobHeld] == 1)
}

// TCPFrames reports whether scenario name receives TCP segments whose
// size the frame knob sets (HdrTCP of headers each, which ip_rcv and
// tcp_data_queue pull: a frame knob below HdrTCP leaves them nothing).
func TCPFrames(name string) bool { return name == WTCPStream || name == WDevmemRx }

// rx runs the NAPI side of one frame of length bytes (hdr of them headers):
// poll bookkeeping — a new poll first flushes the CPU's defer list, as
// net_rx_action does before every napi_poll — then the driver's receive.
func (e *Env) rx(length, hdr int) *skb.SKB {
	d := e.Drv
	cpu := e.inSoftirq(d.CPU())
	if !d.Scheduled() {
		d.Schedule() // the RX IRQ: napi_schedule
	}
	if d.Poll(length) {
		e.S.SkbDeferFreeFlush(cpu)
	}
	e.M.Begin(cpu, sim.SymDrvRx)
	sk, err := d.Receive(length, hdr)
	if !e.settle(sk, err) {
		return nil
	}
	return sk
}

// stackRx charges the receive path up to the protocol: eth_type_trans, GRO,
// __netif_receive_skb_core and the calibrated rest of the stack.
func (e *Env) stackRx(cpu int) {
	e.M.Charge4(cpu, sim.SymEthTypeTrans, sim.SymGroReceive, sim.SymNetifReceive, sim.SymStackRest)
}

// NewWorkload returns the named workload on env (the driver must run it).
func NewWorkload(name string, e *Env) (Workload, error) {
	e.Frame = DefaultFrame(name)
	if v := e.M.Knobs[sim.KnobFrame]; v > 0 {
		e.Frame = int(v)
	}
	switch name {
	case WDrop, WPfmemalloc:
		return &drop{}, nil
	case WNumaMigrate:
		if e.M.Knobs[sim.KnobNumaNodes] < 2 || len(e.M.CPUs) < 2 {
			return nil, fmt.Errorf("numa-migrate needs numa_nodes >= 2 and cpus >= 2")
		}
		return &drop{migrateAt: -1}, nil
	case WTCPStream:
		return newTCPStream(e), nil
	case WForward:
		return newForward(e), nil
	case WXDPRedirect:
		if e.M.Knobs[sim.KnobRedirectTo] == 1 {
			return newXDPRedirectPort(e), nil
		}
		return &xdpRedirect{}, nil
	case WXDPDrop:
		return &xdpDrop{}, nil
	case WXDPTx:
		return newXDPTx(), nil
	case WSplitPage:
		return &splitPage{}, nil
	case WCloneTap:
		every := e.M.Knobs[sim.KnobTapEvery]
		if every == 0 {
			every = 4
		}
		return &cloneTap{tap: tapper{every: every}}, nil
	case WCoalesceMixed:
		return &coalesceMixed{}, nil
	case WDestroy:
		if e.M.Knobs[sim.KnobHeld] == 1 {
			return newDestroyXDP(e), nil
		}
		return &destroy{}, nil
	case WGenericXDP:
		return &genericXDP{frags: e.M.Knobs[sim.KnobXDPFrags] != 0}, nil
	case WDevmemRx:
		return newDevmemRx(e)
	}
	return nil, fmt.Errorf("unknown workload %q", name)
}

// SetUnloadAt sets after how many packets destroy unloads the driver.
func SetUnloadAt(w Workload, n int64) {
	switch d := w.(type) {
	case *destroy:
		d.unloadAt = n
	case *destroyXDP:
		d.unloadAt = n
	}
}
