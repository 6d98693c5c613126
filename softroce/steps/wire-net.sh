# Sourced by the guest steps that put the emulated provider's wire device beside the kernel's rxe (wire-interop.sh,
# benchmarks/guest/wire-rxe): a veth pair whose root end carries an rxe device and whose other end sits in a
# network namespace of its own, where a JVM binds the wire device. rxe binds UDP 4791 on every address of its
# namespace, so the Java end needs another one.
#
#   root namespace                               namespace NS
#   RXE_DEV on veth RXE_IF RXE_IP/24  <-- veth -->  JAVA_IF JAVA_IP/24, the wire device
#
# wire_net_up NS RXE_DEV RXE_IF JAVA_IF RXE_IP JAVA_IP: sets it up and waits for RXE_DEV's RoCE v2 GID of
# RXE_IP; prints the commands and sets WIRE_NET_GID_INDEX. Returns 1, after saying why, when a step fails.
#
# rxe_pair_up A_DEV A_IF A_IP B_DEV B_IF B_IP: two rxe devices of the root namespace on the two ends of a veth pair,
# for rxe against rxe across a netdev whose qdisc can hurt the traffic (wire-interop.sh's arbiter). Between two
# local addresses the kernel would route through lo, so policy routing sends what is sent locally from one /32
# address to the other out of the veth (rules with iif lo, before the local table), and both ends accept packets
# from a local source (accept_local, no rp_filter). Sets RXE_PAIR_GID_A and RXE_PAIR_GID_B.

wire_net_up() {
    local ns=$1 rxe_dev=$2 rxe_if=$3 java_if=$4 rxe_ip=$5 java_ip=$6 cmd
    local -a cmds=(
        "ip link add $rxe_if type veth peer name $java_if"
        "ip netns add $ns"
        "ip link set $java_if netns $ns"
        "ip addr add $rxe_ip/24 dev $rxe_if"
        "ip link set $rxe_if up"
        "ip netns exec $ns ip link set lo up"
        "ip netns exec $ns ip addr add $java_ip/24 dev $java_if"
        "ip netns exec $ns ip link set $java_if up"
        # The JVM asks for a 4 MiB UDP receive buffer; a 1 MiB message from rxe is 1024 packets in a burst.
        "sysctl -q -w net.core.rmem_max=16777216 net.core.wmem_max=16777216 net.core.netdev_max_backlog=10000"
        "rdma link add $rxe_dev type rxe netdev $rxe_if"
    )
    for cmd in "${cmds[@]}"; do
        echo "+ $cmd"
        $cmd || { echo "wire_net_up: $cmd (exit $?)"; return 1; }
    done
    wire_net_gid "$rxe_dev" "$rxe_ip" || return 1
    echo "$rxe_dev on $rxe_if: GID index $WIRE_NET_GID_INDEX, active MTU $(ibv_devinfo -d "$rxe_dev" | awk '/active_mtu/ {print $2}')"
    ip netns exec "$ns" ip -br addr
}

# wire_net_gid DEV IP: waits (30 s) for DEV's port to be ACTIVE with a RoCE v2 GID of IP; sets WIRE_NET_GID_INDEX.
wire_net_gid() {
    local rxe_dev=$1 rxe_ip=$2
    local want gid_dir=/sys/class/infiniband/$rxe_dev/ports/1 idx= state= f n i
    want=0000:0000:0000:0000:0000:ffff:$(printf '%02x%02x:%02x%02x' ${rxe_ip//./ })
    for ((i = 0; i < 150; i++)); do
        state=$(cat "$gid_dir/state" 2>/dev/null || true)
        if [[ $state == *ACTIVE* ]]; then
            for f in "$gid_dir"/gids/*; do
                n=${f##*/}
                if [[ $(cat "$f" 2>/dev/null) == "$want" ]] &&
                    [[ $(cat "$gid_dir/gid_attrs/types/$n" 2>/dev/null) == "RoCE v2" ]]; then
                    idx=$n
                    break
                fi
            done
        fi
        [ -n "$idx" ] && break
        sleep 0.2
    done
    [ -n "$idx" ] || { echo "wire_net_gid: $rxe_dev: port ${state:-none}, no RoCE v2 GID for $rxe_ip"; return 1; }
    WIRE_NET_GID_INDEX=$idx
}

rxe_pair_up() {
    local a_dev=$1 a_if=$2 a_ip=$3 b_dev=$4 b_if=$5 b_ip=$6 cmd c
    local -a cmds=("ip link add $a_if type veth peer name $b_if")
    for c in all default "$a_if" "$b_if"; do
        cmds+=("sysctl -q -w net.ipv4.conf.$c.accept_local=1 net.ipv4.conf.$c.rp_filter=0")
    done
    cmds+=(
        "ip addr add $a_ip/32 dev $a_if"
        "ip addr add $b_ip/32 dev $b_if"
        "ip link set $a_if up"
        "ip link set $b_if up"
        "ip route add $b_ip/32 dev $a_if table 181"
        "ip route add $a_ip/32 dev $b_if table 182"
        "ip rule add pref 10 iif lo from $a_ip to $b_ip lookup 181"
        "ip rule add pref 11 iif lo from $b_ip to $a_ip lookup 182"
        "ip rule add pref 100 lookup local"
        "ip rule del pref 0"
        "rdma link add $a_dev type rxe netdev $a_if"
        "rdma link add $b_dev type rxe netdev $b_if"
    )
    for cmd in "${cmds[@]}"; do
        echo "+ $cmd"
        $cmd || { echo "rxe_pair_up: $cmd (exit $?)"; return 1; }
    done
    wire_net_gid "$a_dev" "$a_ip" || return 1
    RXE_PAIR_GID_A=$WIRE_NET_GID_INDEX
    wire_net_gid "$b_dev" "$b_ip" || return 1
    RXE_PAIR_GID_B=$WIRE_NET_GID_INDEX
    echo "$a_dev on $a_if ($a_ip, GID index $RXE_PAIR_GID_A) and $b_dev on $b_if ($b_ip, GID index $RXE_PAIR_GID_B)"
    ip route get "$b_ip" from "$a_ip"
}
