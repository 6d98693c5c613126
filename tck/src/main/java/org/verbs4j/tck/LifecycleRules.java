package org.verbs4j.tck;

public abstract class LifecycleRules extends TckArea {
    protected LifecycleRules(VerbsCompatibilityKit kit) {
        super(kit);
    }
}
