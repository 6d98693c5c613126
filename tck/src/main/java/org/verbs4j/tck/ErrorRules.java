package org.verbs4j.tck;

public abstract class ErrorRules extends TckArea {
    protected ErrorRules(VerbsCompatibilityKit kit) {
        super(kit);
    }
}
