#!/usr/bin/env bash
# Records real page_pool:* tracepoints from this machine's own kernel, from a
# veth pool's creation to its destroy: a veth pair (vpaN in the root
# namespace, vpbN in a namespace made here), an allow-all XDP program loaded
# natively on vpbN (xdp-filter from Debian's xdp-tools: with XDP on, veth
# gives the peer's queue a page_pool and copies every skb that arrives
# without XDP_PACKET_HEADROOM, or nonlinear, into its pages —
# veth_convert_skb_to_xdp_buff → skb_pp_cow_data), a bounded TCP transfer
# from the root namespace into the namespace, then the namespace deleted
# (the veth pair and its pool destroyed) while page_pool:* is recorded.
# All traffic stays inside the pair; every step is bounded by a timeout.
#
# Usage: live/capture.sh OUT_FILE [MiB]   (root; exit 3 names the step the
# kernel refused)
set -uo pipefail
out=${1:?usage: live/capture.sh OUT_FILE [MiB]}; mib=${2:-4}
ns=pplive$$; a=vpa$$; b=vpb$$
T=/sys/kernel/tracing
step() { echo "live: $1" >&2; }
fail() { echo "live: the kernel refused: $1" >&2; exit 3; }
[ "$(id -u)" = 0 ] || fail "running as root (make live records kernel tracepoints: run it as root)"
command -v xdp-filter >/dev/null || { step "installing xdp-tools (apt)"; { apt-get update -qq && apt-get install -y -qq xdp-tools >/dev/null; } || fail "apt-get install xdp-tools"; }
[ -d $T/events ] || mount -t tracefs nodev $T || fail "mount -t tracefs nodev $T"
[ -d $T/events/page_pool ] || fail "no page_pool tracepoints in $T/events (a kernel without CONFIG_PAGE_POOL?)"
I=$T/instances/pplive$$
recv=$(mktemp) || fail "mktemp"
cleanup() {
	[ -d $I ] && { echo 0 > $I/events/page_pool/enable; rmdir $I; } 2>/dev/null
	ip netns del $ns 2>/dev/null; ip link del $a 2>/dev/null
	[ -n "${srv:-}" ] && kill $srv 2>/dev/null
	rm -f "$recv"
	true
}
trap cleanup EXIT
ip link add $a numrxqueues 1 numtxqueues 1 type veth peer name $b numrxqueues 1 numtxqueues 1 || fail "ip link add $a type veth peer name $b (one queue each way)"
ip netns add $ns || fail "ip netns add $ns"
ip link set $b netns $ns || fail "ip link set $b netns $ns"
ip addr add 10.253.$(( $$ % 250 )).1/30 dev $a && ip link set $a up || fail "ip link set $a up"
addr=10.253.$(( $$ % 250 )).2
ip netns exec $ns sh -c "ip addr add $addr/30 dev $b && ip link set $b up && ip link set lo up" || fail "configuring $b in namespace $ns"
# the capture starts before the pool exists (ip netns exec mounts a fresh
# /sys per command: bpffs is mounted in the same command that loads)
mkdir $I || fail "mkdir $I (a tracing instance of its own)"
echo 1 > $I/tracing_on && echo 1 > $I/events/page_pool/enable || fail "echo 1 > $I/events/page_pool/enable"
ip netns exec $ns sh -c "mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf" || fail "mount -t bpf bpf /sys/fs/bpf (in namespace $ns)"
ip netns exec $ns sh -c "mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf; xdp-filter load $b --mode native" >/dev/null || fail "xdp-filter load $b --mode native (an allow-all XDP program)"
ip netns exec $ns timeout 30 python3 -c "
import socket
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1); s.bind(('$addr',5001)); s.listen(1); s.settimeout(20)
c,_=s.accept(); c.settimeout(20)
n=0
while True:
    d=c.recv(65536)
    if not d: break
    n+=len(d)
print(n)" > "$recv" &
srv=$!
sleep 0.5
timeout 30 python3 -c "
import socket,time
for i in range(50):
    try:
        c=socket.create_connection(('$addr',5001),timeout=5); break
    except OSError: time.sleep(0.1)
b=b'y'*65536
for _ in range($mib*16): c.sendall(b)
c.close()" || fail "the TCP transfer of $mib MiB into namespace $ns"
wait $srv || fail "the receiver in namespace $ns"
srv=
got=$(cat "$recv")
[ "$got" = $(( mib * 1048576 )) ] || fail "the transfer: the receiver got $got bytes of $(( mib * 1048576 ))"
# destroy: deleting the namespace deletes vpbN (and its pair); the pool is
# destroyed when its last page comes back
ip netns del $ns || fail "ip netns del $ns"
for i in $(seq 50); do ip link show $a >/dev/null 2>&1 || break; sleep 0.1; done
# skbs freed by the reader wait on the defer list of the CPU that built them
# until that CPU runs net_rx_action: one UDP datagram over loopback from each
# CPU raises NET_RX_SOFTIRQ there (an idle CPU may otherwise keep them, and
# the pool's destroy waiting, indefinitely)
python3 -c "
import os, socket
for c in sorted(os.sched_getaffinity(0)):
    os.sched_setaffinity(0, {c})
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(('127.0.0.1', 0))
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', r.getsockname()); r.recv(1)"
# wait (at most 5 s) for the destroy to finish: page_pool_release printing
# inflight=0; pages still on an skb (a defer list of a CPU that has not run
# net_rx_action since) keep it waiting, and page_pool_release_retry checks
# again every second
# (every pool the capture saw holding pages)
done_all() {
	for p in $(grep -o 'page_pool_state_hold: page_pool=[0-9a-f]*' $I/trace | sort -u | sed 's/.*=//'); do
		grep -q "page_pool_release: page_pool=$p inflight=0 " $I/trace || return 1
	done
}
for i in $(seq 50); do done_all && break; sleep 0.1; done
echo 0 > $I/events/page_pool/enable
cp $I/trace "$out" || fail "cp $I/trace $out"
grep -q page_pool_state_hold "$out" || fail "recording: the capture holds no page_pool_state_hold (is tracing disabled by something else? $I/tracing_on: $(cat $I/tracing_on))"
echo "live: $(grep -c page_pool_state_hold "$out") holds, $(grep -c page_pool_state_release "$out") releases, $(grep -c 'page_pool_release:' "$out") page_pool_release in $out ($mib MiB over veth)" >&2
