package org.verbs4j;

/**
 * An address handle, {@code struct ibv_ah}: the destination of UD messages. Do not close it while a
 * WR that uses it is outstanding.
 *
 * @see "ibv_create_ah(3)"
 */
public interface AddressHandle extends VerbsObject {
    /**
     * Destroys the address handle.
     *
     * @see "ibv_destroy_ah(3)"
     */
    @Override
    void close();

    /** {@return the protection domain the address handle was created in} */
    ProtectionDomain pd();

    /** {@return the address vector it was created with} */
    AhAttributes attributes();
}
