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
    [ -n "$idx" ] || { echo "wire_net_up: $rxe_dev: port ${state:-none}, no RoCE v2 GID for $rxe_ip"; return 1; }
    WIRE_NET_GID_INDEX=$idx
    echo "$rxe_dev on $rxe_if: GID index $idx, active MTU $(ibv_devinfo -d "$rxe_dev" | awk '/active_mtu/ {print $2}')"
    ip netns exec "$ns" ip -br addr
}
