package org.verbs4j.tck;

public abstract class TransportRules extends TckArea {
    protected TransportRules(VerbsCompatibilityKit kit) {
        super(kit);
    }
}
