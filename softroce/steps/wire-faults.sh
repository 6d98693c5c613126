# Sourced by the guest steps that put a hostile network between two RoCE v2 ends (wire-interop.sh): the fault
# classes of the wire device's conformance suite (issue 27), as tc on a netdev's egress, packet position by packet
# position. Every RoCE v2 packet is UDP to port 4791; its BTH opcode is the byte at offset 28 of an IPv4 header
# without options (20 bytes of IP, 8 of UDP), so a u32 filter per opcode picks one position of one operation
# (SEND_FIRST, RDMA_WRITE_MIDDLE, READ_RESPONSE_LAST, ATOMIC_ACKNOWLEDGE, ...). Each filter counts its own packets
# and a gact action acts on every Nth of them (random determ): deterministic for a given packet sequence, and a
# retransmission is one more packet of its opcode, so it passes unless it is itself the Nth.
#
#   prio qdisc 1:, every packet to band 1:1 unless a filter sends it to band 1:2, whose netem is the fault:
#   "reorder"  netem delay 5ms        held while the packets behind it overtake it
#   "late"     netem delay 600ms      delivered after the requester's timeout (268 ms) retried it
#   "dup"      netem duplicate 100%   delivered twice
#   "drop"     no band: the filter's action drops the packet
# (one netem per tree: the kernel refuses a duplicating netem beside another one.)
#
# Modes: FAULT-CLASS with FAULT drop, dup, reorder or late and CLASS req (the request opcodes: SEND, SEND_IMM,
# SEND_INV and RDMA WRITE at each position, RDMA READ request, CMP_SWP, FETCH_ADD) or resp (ACK and NAK, RDMA READ
# response at each position, ATOMIC_ACKNOWLEDGE).

# BTH opcodes (IBA 9.2, table 38) of RC.
WIRE_FAULT_REQ=(0x00 0x01 0x02 0x03 0x04 0x05 0x06 0x07 0x08 0x09 0x0a 0x0b 0x0c 0x13 0x14 0x16 0x17)
WIRE_FAULT_RESP=(0x0d 0x0e 0x0f 0x10 0x11 0x12)
WIRE_FAULT_MODES=(drop-req drop-resp dup-req dup-resp reorder-req reorder-resp late-req late-resp)
# Every Nth packet of each opcode; of a MIDDLE opcode every Mth, as a 64 KiB message has 62 of them (at MTU 1024):
# a go-back-N requester resends everything after a lost packet, so a fault at every 5th MIDDLE would cost each
# message some ten rounds. Primes, so that the faults do not keep to one position of a repeated message.
WIRE_FAULT_EVERY=${WIRE_FAULT_EVERY:-5}
WIRE_FAULT_EVERY_MIDDLE=${WIRE_FAULT_EVERY_MIDDLE:-37}
# The MIDDLE opcodes: SEND_MIDDLE, RDMA_WRITE_MIDDLE, RDMA_READ_RESPONSE_MIDDLE.
WIRE_FAULT_MIDDLE=" 0x01 0x07 0x0e "

# wire_fault_apply DEV MODE [PREFIX...]: replaces DEV's egress qdisc with MODE's; PREFIX runs each tc command
# (ip netns exec NS for a device in a namespace).
wire_fault_apply() {
    local dev=$1 mode=$2 fault class op every
    shift 2
    local -a pre=("$@") ops action netem
    fault=${mode%-*} class=${mode#*-}
    case $class in
        req) ops=("${WIRE_FAULT_REQ[@]}") ;;
        resp) ops=("${WIRE_FAULT_RESP[@]}") ;;
        *) echo "wire_fault_apply: unknown class in '$mode'" >&2; return 2 ;;
    esac
    case $fault in
        drop) netem=() ;;
        reorder) netem=(delay 5ms) ;;
        late) netem=(delay 600ms) ;;
        dup) netem=(duplicate 100%) ;;
        *) echo "wire_fault_apply: unknown fault in '$mode'" >&2; return 2 ;;
    esac
    wire_fault_clear "$dev" "${pre[@]}"
    "${pre[@]}" tc qdisc add dev "$dev" root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 || return 1
    if ((${#netem[@]})); then
        "${pre[@]}" tc qdisc add dev "$dev" parent 1:2 handle 20: netem "${netem[@]}" limit 10000 || return 1
    fi
    for op in "${ops[@]}"; do
        every=$WIRE_FAULT_EVERY
        [[ $WIRE_FAULT_MIDDLE == *" $op "* ]] && every=$WIRE_FAULT_EVERY_MIDDLE
        if [ "$fault" = drop ]; then
            action=(action gact continue random determ drop "$every")
        else
            action=(flowid 1:2 action gact continue random determ ok "$every")
        fi
        "${pre[@]}" tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
            match ip dport 4791 0xffff match u8 "$op" 0xff at 28 "${action[@]}" || return 1
    done
}

# wire_fault_clear DEV [PREFIX...]: DEV's default egress qdisc again.
wire_fault_clear() {
    local dev=$1
    shift
    "$@" tc qdisc del dev "$dev" root 2>/dev/null
    return 0
}

# wire_fault_counts DEV [PREFIX...]: one line, the packets each band took and the filters' drops.
wire_fault_counts() {
    local dev=$1
    shift
    "$@" tc -s qdisc show dev "$dev" | awk '/^qdisc/ {q = $2 " " $3} /Sent/ {printf "%s%s %s packets", sep, q, $4; sep = ", "} END {print ""}'
}
