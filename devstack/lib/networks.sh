# devstack's default networks: public, private and router1 (sourced by
# stack.sh). devstack/lib/lab_networks.py makes what is missing through
# the network API with the clouds of clouds.yaml.

nl_default_networks_wanted() {
    [[ $NOVA_LITE_DEFAULT_NETWORKS =~ ^(True|true|1|yes)$ ]]
}

nl_default_networks() {
    OS_CLIENT_CONFIG_FILE="$STATE/clouds.yaml" \
        "$VENV/bin/python" "$NL_DEVSTACK_DIR/lib/lab_networks.py" \
        "$NL_API_URL/network" "$NOVA_LITE_IP_VERSION" \
        "$NOVA_LITE_FIXED_RANGE" "$NOVA_LITE_FLOATING_RANGE" \
        "$NOVA_LITE_PUBLIC_NETWORK_GATEWAY"
}
