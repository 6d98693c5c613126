package org.verbs4j.tck;

public abstract class DataInOrderRules extends TckArea {
    protected DataInOrderRules(VerbsCompatibilityKit kit) {
        super(kit);
    }
}
