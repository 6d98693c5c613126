/**
 * The emulated connection manager (rdma_cm): its ids, events and event channels, and how their CM messages
 * travel, in the JVM or through a wire device's QP1 agent ({@code CmAgent}, speaking the IB CM's MADs). It also
 * assembles the JVM's list of devices ({@code EmulatedDevices}), because a wire device is made of the verbs
 * objects' device, the wire transport's endpoint and this package's agent.
 */
package org.verbs4j.provider.emulated.cm;
