package org.verbs4j;

/**
 * Enhanced Connection Establishment options ({@code struct ibv_ece}): what a QP's device offers to negotiate with its
 * peer's, exchanged out of band (rdma_cm carries them in its private data) and applied by the device at the modify
 * QP stages that use them. Three 32-bit fields, each read as unsigned in C.
 *
 * @param vendorId the IEEE OUI of the device's vendor, so that a device tells its own options from another vendor's
 * @param options vendor-specific option bits: on {@link QueuePair#queryEce()} those the device supports, on
 *     {@link QueuePair#setEce(Ece)} those to enable
 * @param compMask which of the struct's extensions are valid; 0 (none is defined in rdma-core 44)
 * @see "ibv_query_ece(3)"
 * @see "ibv_set_ece(3)"
 */
public record Ece(int vendorId, int options, int compMask) {}
